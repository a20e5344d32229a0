// LocalCluster: a real canopyd and canopy-agent on 127.0.0.1 for integration tests, in a fresh
// temporary directory. Binaries come from the build tree (paths compiled in). Every process is
// killed when the LocalCluster is destroyed. Thread-compatible.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "tests/testing/subprocess.h"

namespace canopy::testing {

class LocalCluster {
 public:
  // `config_yaml` is the cluster's Canopy YAML (its controller/state settings are overridden
  // by flags so tests never share ports or directories).
  explicit LocalCluster(const std::string& config_yaml);
  ~LocalCluster();

  // `extra_flags` are added to canopyd's command line.
  absl::Status StartController(const std::vector<std::string>& extra_flags = {});
  // kill -9 the controller (nothing is flushed, as in a crash).
  void CrashController();
  void StopController();  // SIGTERM and wait
  absl::Status StartAgent(const std::string& virtual_nodes,
                          const std::vector<std::string>& extra_flags = {});
  void KillAgent();  // kill -9 (its jobs' processes may survive it, as on a real node)
  void StopAgent();  // SIGTERM and wait: the agent kills its jobs first

  // canopyctl --controller ADDR ARGS...
  CommandResult Canopyctl(const std::vector<std::string>& args) const;
  // The binary run under another name (scontrol, ...) with CANOPY_CONTROLLER set to the
  // controller's unix socket.
  CommandResult FrontEnd(const std::string& name, const std::vector<std::string>& args) const;
  // How many nodes sinfo shows idle (registered, nothing running). What tests wait for before
  // they submit: a line that merely holds the number of nodes ("unk 2") let a test start before
  // its nodes had registered, and its first job ran on whichever registered first.
  int IdleNodes() const;
  // The same, run in directory `cwd` (sbatch's submit directory), killed after `timeout`.
  CommandResult FrontEndIn(const std::string& name, const std::vector<std::string>& args,
                           const std::string& cwd,
                           absl::Duration timeout = absl::Seconds(30)) const;
  // The front end started in the background in `cwd` (srun, sattach), its stdout and stderr
  // appended to `log_path`; the test owns (and so kills) it.
  absl::StatusOr<Subprocess> StartFrontEnd(const std::string& name,
                                           const std::vector<std::string>& args,
                                           const std::string& cwd,
                                           const std::string& log_path) const;
  // An environment variable every front end started from now on gets (CANOPY_CONFIG, for
  // front ends that read the cluster config).
  void SetFrontEndVariable(const std::string& name, const std::string& value) {
    front_end_env_[name] = value;
  }
  // The running canopyd's pid (-1 if none).
  pid_t controller_pid() const { return controller_.has_value() ? controller_->pid() : -1; }
  pid_t agent_pid() const { return agent_.has_value() ? agent_->pid() : -1; }
  // "unix:<state dir>/canopyd.sock".
  std::string socket_target() const;

  const std::string& dir() const { return dir_; }
  const std::string& address() const { return address_; }
  std::string config_path() const { return dir_ + "/canopy.yaml"; }
  std::string ControllerLog() const { return ReadFile(dir_ + "/canopyd.log"); }
  std::string AgentLog() const { return ReadFile(dir_ + "/agent.log"); }

 private:
  std::string dir_;
  std::string address_;
  std::optional<Subprocess> controller_;
  std::optional<Subprocess> agent_;
  std::map<std::string, std::string> front_end_env_;
};

}  // namespace canopy::testing
