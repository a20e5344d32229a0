// scontrol's command line, as far as Canopy serves it: getopt options (-a/--all, -d/--details,
// -o/--oneliner, -Q/--quiet, -v/--verbose, -V/--version, on common/slurm's engine, anywhere on
// the line as GNU getopt permutes them), then the words
//   show hostnames|hostlist|hostlistsorted|topology [ARG]
//   show job [ID], show node [NAME|HOSTLIST], show partition [NAME], show config,
//   show reservation [NAME], show steps [JOBID[_TASK][.STEPID]]
//   update NodeName=... State=DRAIN|DOWN|RESUME Reason=...
//   update job ID KEY=VALUE... (job_words.h, job_update_keys.h)
//   hold|uhold|release|requeue|requeuehold|top|suspend|resume JOB_LIST
//   write batch_script JOBID [FILE|-]
//   ping, reconfigure, version, notify JOBID MESSAGE..., listpids [JOBID[.STEPID]] [NODENAME]
// Keywords may be abbreviated to any unambiguous prefix of a minimum length ("sho", "hostn",
// "rel", "n" for nodes, "pa" for partitions), as Slurm's scontrol reads them. Pure; thread-safe.
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
  kHold,              // hold JOB_LIST
  kUserHold,          // uhold JOB_LIST
  kRelease,           // release JOB_LIST
  kRequeue,           // requeue JOB_LIST
  kRequeueHold,       // requeuehold JOB_LIST
  kTop,               // top JOB_LIST
  kSuspend,           // suspend JOB_LIST
  kResume,            // resume JOB_LIST
  kShowNode,          // show node [NAME|HOSTLIST] (also "show nodes")
  kShowPartition,     // show partition [NAME] (also "show partitionname NAME")
  kShowConfig,        // show config
  kShowReservation,   // show reservation [NAME] (also "show res")
  kShowSteps,         // show steps [JOBID[_TASK][.STEPID]] (also "show step")
  kWriteBatchScript,  // write batch_script JOBID [FILE|-]
  kReconfigure,       // reconfigure
  kNotify,            // notify JOBID MESSAGE...
  kListPids,          // listpids [JOBID[.STEPID]] [NODENAME]
  kVersion,           // -V, --version, or the word "version"
};

struct ScontrolRequest {
  Command command = Command::kPing;
  // The options. -o and -Q shape the records and messages of show job|node|partition|steps;
  // -a and -d change nothing Canopy shows yet.
  bool all = false;        // -a: hidden partitions too
  bool details = false;    // -d
  bool one_liner = false;  // -o: one record per line
  bool quiet = false;      // -Q
  int verbose = 0;         // -v, repeatable
  // show: its argument, if any ("show hostnames=EXPR" is "show hostnames EXPR"); update: the
  // KEY=VALUE words; hold, release, ...: the job list's words; write batch_script: the job id
  // and the file, if any (as given: Slurm reads the id with atoll).
  std::vector<std::string> args;
};

// InvalidArgument whose message is what scontrol prints (each line as is; it exits 1): getopt's
// errors ("scontrol: unrecognized option '--x'" and the Try line), "too few arguments for
// keyword:show", "invalid entity:X for keyword:show ", "invalid keyword: X", "too few|many
// arguments for keyword:write", "invalid write argument:X", "too many arguments for
// keyword:reconfigure|listpids", "too few arguments for keyword:notify".
absl::StatusOr<ScontrolRequest> ParseScontrolArgs(const std::vector<std::string>& args);

// The words of `update` as an UpdateNodeRequest. InvalidArgument with what scontrol prints
// (exit 1): "scontrol: error: Invalid input: X\nRequest aborted", "scontrol: error: Update of
// this parameter is not supported: X\nRequest aborted", "scontrol: error: Invalid node state
// specified", or the refusal of DRAIN/DOWN without Reason.
absl::StatusOr<canopy::v1::UpdateNodeRequest> ParseNodeUpdate(
    const std::vector<std::string>& words);

}  // namespace canopy::ctl::scontrol
