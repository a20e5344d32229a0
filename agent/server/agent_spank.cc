#include "agent/server/agent_spank.h"

#include <unistd.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "plugins/spank/plugstack.h"
#include "spdlog/spdlog.h"

namespace canopy::agent {
namespace {

std::string BesideThisExecutable(const std::string& name) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? name : (self.parent_path() / name).string();
}

}  // namespace

absl::StatusOr<std::unique_ptr<AgentSpank>> AgentSpank::Start(
    const std::optional<config::ClusterConfig>& config, const std::string& helper) {
  std::unique_ptr<AgentSpank> spank(new AgentSpank());
  if (!config.has_value()) {
    return spank;
  }
  absl::StatusOr<spank::PlugStack> stack =
      spank::ReadPlugStack(config->plugstack_config, config->plugin_dir);
  if (!stack.ok()) {
    if (absl::IsNotFound(stack.status()) && !config->plugstack_config_explicit) {
      return spank;  // no plugstack.conf beside the config: no plugins, as in Slurm
    }
    return absl::FailedPreconditionError(
        absl::StrCat("PlugStackConfig: ", stack.status().message()));
  }
  for (const std::string& warning : stack->warnings) {
    spdlog::warn("spank: {}", warning);
  }
  if (stack->entries.empty()) {
    return spank;
  }
  spank->settings_.helper = helper.empty() ? BesideThisExecutable("canopy-spank-task") : helper;
  spank->settings_.plugstack = config->plugstack_config;
  spank->settings_.plugin_dirs = config->plugin_dir;
  if (access(spank->settings_.helper.c_str(), X_OK) != 0) {
    return absl::NotFoundError(absl::StrCat("the SPANK task helper ", spank->settings_.helper,
                                            " is missing or not executable (",
                                            config->plugstack_config,
                                            " names plugins; install canopy-spank-task beside "
                                            "canopy-agent or pass --spank-task-helper)"));
  }
  absl::StatusOr<std::unique_ptr<spank::SpankHost>> host =
      spank::SpankHost::Load(S_CTX_SLURMD, stack->entries);
  if (!host.ok()) {
    return absl::FailedPreconditionError(host.status().message());
  }
  if (absl::Status s = (*host)->Run(spank::Hook::kInit); !s.ok()) {
    return absl::FailedPreconditionError(s.message());
  }
  spank->slurmd_host_ = *std::move(host);
  spdlog::info("spank: {} plugin(s) from {}; tasks start through {}", stack->entries.size(),
               config->plugstack_config, spank->settings_.helper);
  return spank;
}

AgentSpank::~AgentSpank() {
  if (slurmd_host_ != nullptr) {
    (void)slurmd_host_->Run(spank::Hook::kSlurmdExit);
  }
}

}  // namespace canopy::agent
