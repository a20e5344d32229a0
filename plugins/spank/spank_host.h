// SpankHost: a plugin stack (plugstack.conf) loaded into one process in one SPANK context, and
// the state its plugins reach through the spank_* API (spank_api.cc): the job's items, the
// environment, the options the plugins registered and their values.
//
// Who hosts what (Slurm's contexts):
//   S_CTX_LOCAL      srun             init, init_post_opt, local_user_init, exit
//   S_CTX_ALLOCATOR  sbatch, salloc   init, init_post_opt, exit
//   S_CTX_REMOTE     canopy-spank-task (the agent's slurmstepd): init, init_post_opt,
//                    user_init, task_init_privileged, task_post_fork, task_init, task_exit, exit
//   S_CTX_SLURMD     canopy-agent     init, slurmd_exit
//   S_CTX_JOB_SCRIPT canopy-spank-task --job-script: job_prolog or job_epilog
// One host per process at a time (spank_context() takes no handle). Not thread-safe: hooks run
// on the thread that calls Run().
#pragma once

#include <slurm/spank.h>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/spank/plugstack.h"
#include "plugins/spank/spank_items.h"
#include "plugins/spank/spank_plugin.h"

namespace canopy::spank {

// One option a plugin offers (spank_option_register or its spank_options table), and what the
// user gave for it.
struct PluginOption {
  std::string plugin;
  std::string name;
  std::string arginfo;
  std::string usage;
  int has_arg = 0;  // 0 none, 1 required, 2 optional
  int val = 0;
  spank_opt_cb_f cb = nullptr;
  bool set = false;
  std::string optarg;
};

enum class LogLevel { kError, kInfo, kVerbose, kDebug, kDebug2, kDebug3 };
using LogSink = std::function<void(LogLevel level, const std::string& message)>;
// Where slurm_error/info/verbose/debug* and the host's own notes go (default: spdlog).
void SetLogSink(LogSink sink);
void Log(LogLevel level, const std::string& message);

class SpankHost {
 public:
  // Loads every plugin of `entries`. A required plugin that cannot be loaded is an error
  // ("spank: <path>: <why>"); an optional one is logged and left out. Registers the plugins'
  // static option tables. Becomes the process's active host (spank_context()) until destroyed.
  // `hooks_anywhere`, if given, gets the hooks any loaded plugin defines, also those of plugins
  // this context leaves out (the agent learns so whether its prolog runs job_prolog hooks
  // without opening every plugin twice).
  static absl::StatusOr<std::unique_ptr<SpankHost>> Load(spank_context_t context,
                                                         const std::vector<PlugStackEntry>& entries,
                                                         std::set<Hook>* hooks_anywhere = nullptr);
  // Reads `plugstack_path` and loads it; a missing file at the default path (`must_exist`
  // false) is an empty stack, as in Slurm.
  static absl::StatusOr<std::unique_ptr<SpankHost>> LoadFile(spank_context_t context,
                                                             const std::string& plugstack_path,
                                                             const std::string& plugin_dirs,
                                                             bool must_exist);
  ~SpankHost();
  SpankHost(const SpankHost&) = delete;
  SpankHost& operator=(const SpankHost&) = delete;

  spank_context_t context() const { return context_; }
  bool empty() const { return plugins_.empty(); }
  // Whether some plugin defines `hook`.
  bool Has(Hook hook) const;

  // Calls `hook` of each plugin that has it, in stack order. A required plugin's negative
  // return stops the stack and is FailedPrecondition "spank: required plugin NAME: HOOK()
  // failed with rc=N"; an optional plugin's is logged. `task` is for the task hooks.
  absl::Status Run(Hook hook, const TaskItems* task = nullptr);

  // Options: after Run(kInit) every option is registered. Local and allocator front ends
  // apply the user's values with SetOption (calls the plugin's callback with remote = 0);
  // OptionEnvironment() gives the variables that carry them to the remote side, where
  // TakeOptionsFromEnv() applies them (callback with remote = 1) before init_post_opt.
  const std::vector<PluginOption>& options() const { return options_; }
  // InvalidArgument "Invalid --NAME argument: VALUE" (Slurm's words) when the plugin's
  // callback rejects the value; NotFound for an option no plugin offers.
  absl::Status SetOption(const std::string& name, const std::string& optarg);
  std::vector<std::string> OptionEnvironment() const;
  absl::Status TakeOptionsFromEnv();
  // The environment variable that carries option `name` of `plugin`.
  static std::string OptionVariable(const std::string& plugin, const std::string& name);

  // The job's items (set by the process before the hooks that need them).
  JobItems& job() { return job_; }
  // Remote and job-script contexts: the job's environment ("K=V"), which spank_getenv/setenv
  // read and change, and from which the task is started. Local and allocator contexts use the
  // process environment instead.
  std::vector<std::string>& env() { return env_; }
  // The task's command line (S_JOB_ARGV; spank_prepend_task_argv adds to its front).
  std::vector<std::string>& argv() { return argv_; }
  // spank_job_control_setenv's variables (local and allocator contexts), which the job's
  // prolog and epilog get with SPANK_ in front.
  std::map<std::string, std::string>& job_control_env() { return job_control_env_; }

  // For spank_api.cc.
  static SpankHost* Active();
  PluginOption* FindOption(const std::string& plugin, const std::string& name);
  absl::Status Register(const SpankPlugin& plugin, const struct spank_option& option);
  Hook current_hook() const { return current_hook_; }
  // char** views that stay valid until the next change.
  char** EnvArray();
  char** ArgvArray();

 private:
  explicit SpankHost(spank_context_t context) : context_(context) {}

  const spank_context_t context_;
  std::vector<std::unique_ptr<SpankPlugin>> plugins_;
  std::vector<PluginOption> options_;
  JobItems job_;
  std::vector<std::string> env_;
  std::vector<std::string> argv_;
  std::map<std::string, std::string> job_control_env_;
  Hook current_hook_ = Hook::kInit;
  std::vector<char*> env_array_;
  std::vector<char*> argv_array_;
};

}  // namespace canopy::spank
