// The agent's side of SPANK and of the node scripts, in slurmd's place: with a plugstack.conf
// that names plugins, it loads them into the agent in the slurmd context and runs
// slurm_spank_init at start (a failing required plugin stops the agent from starting, as it
// stops slurmd) and slurm_spank_slurmd_exit when destroyed; it tells the runtime to start every
// task through the SPANK task helper (agent/runtime/spank_wrapper.h) where plugins, a
// TaskProlog or a TaskEpilog need it, and when to run Prolog and Epilog (job_scripts.h).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "agent/runtime/job_scripts.h"
#include "agent/runtime/spank_wrapper.h"
#include "common/config/cluster_config.h"
#include "plugins/spank/spank_host.h"

namespace canopy::agent {

class AgentSpank {
 public:
  // `config`: the cluster config, if the agent found one (without it, no plugins).
  // `helper`: the task helper's path; empty: canopy-spank-task beside this executable.
  // FailedPrecondition when an explicitly configured plugstack.conf is missing, a required
  // plugin cannot be loaded or its slurm_spank_init fails; NotFound when the helper is missing.
  static absl::StatusOr<std::unique_ptr<AgentSpank>> Start(
      const std::optional<config::ClusterConfig>& config, const std::string& helper);
  ~AgentSpank();
  AgentSpank(const AgentSpank&) = delete;
  AgentSpank& operator=(const AgentSpank&) = delete;

  // What the runtime needs; not enabled when no plugin, TaskProlog or TaskEpilog is configured.
  const runtime::SpankSettings& settings() const { return settings_; }
  const runtime::JobScriptSettings& scripts() const { return scripts_; }

 private:
  AgentSpank() = default;

  runtime::SpankSettings settings_;
  runtime::JobScriptSettings scripts_;
  std::unique_ptr<spank::SpankHost> slurmd_host_;
};

}  // namespace canopy::agent
