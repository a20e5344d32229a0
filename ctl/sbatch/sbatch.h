// `sbatch`: submits a batch script (a file, stdin, or --wrap) with Slurm 22.05's options and
// messages ("Submitted batch job N", --parsable, "sbatch: error: ...", --help, -W/--wait).
// Parsing is common/slurm/sbatch_options.h, the spec is job_spec.h, the help texts help.h; this
// file does the I/O and the RPC.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "canopy/v1/controller.pb.h"

namespace canopy::ctl::sbatch {

// --test-only's line (printed after "sbatch: "), as Slurm 22.05 words it:
//   Job 1222 to start at 2026-12-03T04:11:01 using 4 processors on nodes gpu[013-016] in
//   partition gpu
std::string TestOnlyLine(const canopy::v1::SubmitJobResponse& response, absl::TimeZone tz);

// sbatch --wait after "Submitted batch job N": every `sleep()` (a second in RunSbatch), asks
// `list_jobs` for the job and its array tasks until all have ended, and returns what sbatch
// exits with: the highest exit code among them, 1 for one killed by a signal. A failed call is
// reported ("sbatch: error: Currently unable to load job state information, retrying: WHY") and
// retried; a job no longer listed ends the wait with 0 and "sbatch: error: Job N no longer found
// and exit code not found", as Slurm's sbatch.
int WaitForJob(uint32_t job_id,
               absl::FunctionRef<absl::StatusOr<canopy::v1::ListJobsResponse>()> list_jobs,
               absl::FunctionRef<void()> sleep, std::ostream& err);

// Submits with `submit`, retrying as Slurm's sbatch does while the controller is full
// (MaxJobCount: ResourceExhausted): "sbatch: error: Slurm temporarily unable to accept job,
// sleeping and retrying" once, then `sleep(1 s)`, `sleep(2 s)`, ... for at most 15 retries (two
// minutes in all). Any other error, or the last one, is returned as it came.
absl::StatusOr<canopy::v1::SubmitJobResponse> SubmitRetryingWhileFull(
    absl::FunctionRef<absl::StatusOr<canopy::v1::SubmitJobResponse>()> submit,
    absl::FunctionRef<void(absl::Duration)> sleep, std::ostream& err);

// The uid of user `name` / gid of group `name` from the system's name service (for --uid and
// --gid; srun uses them too); nullopt when there is none.
std::optional<uint32_t> LookupUserId(const std::string& name);
std::optional<uint32_t> LookupGroupId(const std::string& name);

// `args` excludes the program name; `in` is read when no script file is named. Exit statuses are
// sbatch's: 0, the job's with --wait, 255 or 1 for errors (slurm::ExitCodeOf).
int RunSbatch(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
              std::ostream& err);

}  // namespace canopy::ctl::sbatch
