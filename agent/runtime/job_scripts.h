// Prolog and Epilog, as Slurm's slurmd runs them: as the agent's user (root), in their own
// session, their output in the agent's log, with the environment slurmd builds for them
// (req.c _build_env); with SPANK plugins, through the task helper in its job-script mode, which
// first runs the plugins' slurm_spank_job_prolog/job_epilog (S_CTX_JOB_SCRIPT) and then the
// script, the script's failure reported first. When they run is JobRuntime's business
// (job_runtime_scripts.cc).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/runtime/child_reaper.h"
#include "agent/runtime/spank_wrapper.h"
#include "canopy/v1/agent.pb.h"

namespace canopy::agent::runtime {

struct JobScriptSettings {
  std::string prolog;  // Prolog=; empty: none
  std::string epilog;  // Epilog=
  // PrologFlags=Alloc: every node runs the prolog at launch, before the launch is confirmed.
  // Without it the batch host runs it at launch and the other nodes at their first step.
  bool prolog_alloc = false;
  // PrologEpilogTimeout: a script still running after this is SIGKILLed (its process group)
  // and fails.
  absl::Duration timeout = absl::InfiniteDuration();
  // Some SPANK plugin defines slurm_spank_job_prolog / slurm_spank_job_epilog.
  bool spank_job_prolog = false;
  bool spank_job_epilog = false;
  std::string config_path;  // SLURM_CONF as the scripts see it
  std::string cluster_name;

  bool HasProlog() const { return !prolog.empty() || spank_job_prolog; }
  bool HasEpilog() const { return !epilog.empty() || spank_job_epilog; }
};

enum class JobScript { kProlog, kEpilog };

// The environment slurmd gives its Prolog and Epilog for `launch` on `node_name`, with the
// SPANK job control variables sbatch/srun recorded (SPANK_NAME=value).
std::vector<std::string> JobScriptEnvironment(const canopy::v1::LaunchJob& launch,
                                              const std::string& node_name,
                                              const JobScriptSettings& settings, JobScript which);

// Starts the prolog or the epilog of `launch` and has `reaper` call `on_exit` with its wait
// status. Returns its pid (also its process group). `log_fd`: where its output goes (borrowed).
absl::StatusOr<pid_t> StartJobScript(JobScript which, const canopy::v1::LaunchJob& launch,
                                     const std::string& node_name,
                                     const JobScriptSettings& settings, const SpankSettings& spank,
                                     int log_fd, ChildReaper& reaper,
                                     ChildReaper::ExitCallback on_exit);

// "prolog failed status=1:0": slurmd's words for a failed script's wait status.
std::string DescribeScriptFailure(JobScript which, int wait_status);

}  // namespace canopy::agent::runtime
