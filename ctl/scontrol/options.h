// scontrol's command line, as far as Canopy serves it: getopt options (-a/--all, -d/--details,
// -o/--oneliner, -Q/--quiet, -v/--verbose, on common/slurm's engine, anywhere on the line as
// GNU getopt permutes them), then the words `show hostnames|hostlist|hostlistsorted|topology
// [ARG]`, `show job [ID]`, `update NodeName=... State=DRAIN|DOWN|RESUME Reason=...`,
// `update job ID KEY=VALUE...` (job_words.h), `hold|uhold|release|requeue|requeuehold|top
// JOB_LIST`, `ping`. Keywords may be abbreviated to any unambiguous prefix of a minimum length
// ("sho", "hostn", "rel"), as Slurm's scontrol reads them. Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "canopy/v1/controller.pb.h"

namespace canopy::ctl::scontrol {

enum class Command {
  kShowHostnames,
  kShowHostlist,
  kShowHostlistSorted,
  kShowTopology,
  kShowJob,  // show job [ID] (also "show jobid ID", "show jobs")
  kUpdate,
  kPing,
  kHold,         // hold JOB_LIST
  kUserHold,     // uhold JOB_LIST
  kRelease,      // release JOB_LIST
  kRequeue,      // requeue JOB_LIST
  kRequeueHold,  // requeuehold JOB_LIST
  kTop,          // top JOB_LIST
};

struct ScontrolRequest {
  Command command = Command::kPing;
  // The options. Nothing Canopy shows yet differs with them (they matter for `show job`).
  bool all = false;        // -a: hidden partitions too
  bool details = false;    // -d
  bool one_liner = false;  // -o: one record per line
  bool quiet = false;      // -Q
  int verbose = 0;         // -v, repeatable
  // show: its argument, if any ("show hostnames=EXPR" is "show hostnames EXPR"); update: the
  // KEY=VALUE words; hold, release, ...: the job list's words.
  std::vector<std::string> args;
};

// InvalidArgument whose message is what scontrol prints (each line as is; it exits 1): getopt's
// errors ("scontrol: unrecognized option '--x'" and the Try line), "too few arguments for
// keyword:show", "invalid entity:X for keyword:show ", "invalid keyword: X".
absl::StatusOr<ScontrolRequest> ParseScontrolArgs(const std::vector<std::string>& args);

// The words of `update` as an UpdateNodeRequest. InvalidArgument with what scontrol prints
// (exit 1): "scontrol: error: Invalid input: X\nRequest aborted", "scontrol: error: Update of
// this parameter is not supported: X\nRequest aborted", "scontrol: error: Invalid node state
// specified", or the refusal of DRAIN/DOWN without Reason.
absl::StatusOr<canopy::v1::UpdateNodeRequest> ParseNodeUpdate(
    const std::vector<std::string>& words);

}  // namespace canopy::ctl::scontrol
