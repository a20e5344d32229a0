#include "agent/server/agent_spank.h"

#include <unistd.h>

#include <filesystem>
#include <set>

#include "absl/strings/str_cat.h"
#include "plugins/spank/plugstack.h"
#include "plugins/spank/spank_plugin.h"
#include "spdlog/spdlog.h"

namespace canopy::agent {
namespace {

std::string BesideThisExecutable(const std::string& name) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? name : (self.parent_path() / name).string();
}

// The plugstack's entries; none without a plugstack.conf at the default path (as in Slurm).
absl::StatusOr<std::vector<spank::PlugStackEntry>> PlugStackEntries(
    const config::ClusterConfig& config) {
  absl::StatusOr<spank::PlugStack> stack =
      spank::ReadPlugStack(config.plugstack_config, config.plugin_dir);
  if (!stack.ok()) {
    if (absl::IsNotFound(stack.status()) && !config.plugstack_config_explicit) {
      return std::vector<spank::PlugStackEntry>{};
    }
    return absl::FailedPreconditionError(
        absl::StrCat("PlugStackConfig: ", stack.status().message()));
  }
  for (const std::string& warning : stack->warnings) {
    spdlog::warn("spank: {}", warning);
  }
  return std::move(stack->entries);
}

}  // namespace

absl::StatusOr<std::unique_ptr<AgentSpank>> AgentSpank::Start(
    const std::optional<config::ClusterConfig>& config, const std::string& helper) {
  std::unique_ptr<AgentSpank> spank(new AgentSpank());
  if (!config.has_value()) {
    return spank;
  }
  absl::StatusOr<std::vector<spank::PlugStackEntry>> entries = PlugStackEntries(*config);
  if (!entries.ok()) {
    return entries.status();
  }
  const config::NodeScripts& node_scripts = config->node_scripts;
  runtime::JobScriptSettings& scripts = spank->scripts_;
  scripts.prolog = node_scripts.prolog;
  scripts.epilog = node_scripts.epilog;
  scripts.prolog_alloc = node_scripts.prolog_alloc;
  scripts.timeout = node_scripts.prolog_epilog_timeout;
  scripts.config_path = config->path;
  scripts.cluster_name = config->cluster_name;
  runtime::SpankSettings& settings = spank->settings_;
  settings.task_prolog = node_scripts.task_prolog;
  settings.task_epilog = node_scripts.task_epilog;
  if (entries->empty() && settings.task_prolog.empty() && settings.task_epilog.empty()) {
    return spank;
  }
  settings.helper = helper.empty() ? BesideThisExecutable("canopy-spank-task") : helper;
  if (access(settings.helper.c_str(), X_OK) != 0) {
    return absl::NotFoundError(absl::StrCat(
        "the SPANK task helper ", settings.helper, " is missing or not executable (it runs ",
        entries->empty() ? "TaskProlog and TaskEpilog" : "the plugins of the plugstack.conf",
        "; install canopy-spank-task beside canopy-agent or pass --spank-task-helper)"));
  }
  if (entries->empty()) {
    return spank;
  }
  settings.plugstack = config->plugstack_config;
  settings.plugin_dirs = config->plugin_dir;
  std::set<spank::Hook> hooks;
  absl::StatusOr<std::unique_ptr<spank::SpankHost>> host =
      spank::SpankHost::Load(S_CTX_SLURMD, *entries, &hooks);
  if (!host.ok()) {
    return absl::FailedPreconditionError(host.status().message());
  }
  // Plugins with job_prolog / job_epilog: the prolog and epilog then run through the helper
  // (S_CTX_JOB_SCRIPT) even without a Prolog= or Epilog= script.
  scripts.spank_job_prolog = hooks.contains(spank::Hook::kJobProlog);
  scripts.spank_job_epilog = hooks.contains(spank::Hook::kJobEpilog);
  if (absl::Status s = (*host)->Run(spank::Hook::kInit); !s.ok()) {
    return absl::FailedPreconditionError(s.message());
  }
  spank->slurmd_host_ = *std::move(host);
  spdlog::info("spank: {} plugin(s) from {}; tasks start through {}", entries->size(),
               config->plugstack_config, settings.helper);
  return spank;
}

AgentSpank::~AgentSpank() {
  if (slurmd_host_ != nullptr) {
    (void)slurmd_host_->Run(spank::Hook::kSlurmdExit);
  }
}

}  // namespace canopy::agent
