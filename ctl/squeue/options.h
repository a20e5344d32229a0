// squeue's command line, by getopt_long's rules with squeue's table (common/slurm/getopt.h):
// options and operands mix. Pure: the environment (the SQUEUE_* variables, the caller's uid,
// user names) comes in through SqueueEnvironment. Thread-safe.
//
// Served as in Slurm 22.05: -A/--account, -h/--noheader, -i/--iterate, -j/--jobs[=LIST],
// --json, -l/--long, --me, -n/--name, --noconvert, -o/--format, -O/--Format, -p/--partition,
// -q/--qos, -r/--array, -s/--steps[=LIST], -S/--sort, --start, -t/--states, -u/--user,
// -w/--nodelist, --help, --usage, -V/--version. Accepted with nothing to do (one cluster, no
// hidden partitions, federation, licenses or reservations): -a/--all, --array-unique,
// --federation, --hide, -L/--licenses, --local, -M/--clusters, -P/--priority, -R/--reservation,
// --sibling, -v/--verbose. --yaml is refused (Canopy has no YAML serializer).
//
// As in squeue, -j and -s take their list attached ("-j5", "--jobs=5") or, given bare, from
// the first operand ("-j 5"); any other operand is an error.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "canopy/v1/types.pb.h"

namespace canopy::ctl::squeue {

// What the parse reads besides the arguments. Each SQUEUE_* variable is the default of its
// option, as in Slurm 22.05's squeue; the option on the command line replaces it. A bad value
// is the option's error.
struct SqueueEnvironment {
  std::optional<std::string> squeue_format;     // SQUEUE_FORMAT: a default -o
  std::optional<std::string> squeue_format2;    // SQUEUE_FORMAT2: a default -O
  std::optional<std::string> squeue_sort;       // SQUEUE_SORT: a default -S
  std::optional<std::string> squeue_account;    // SQUEUE_ACCOUNT: -A
  std::optional<std::string> squeue_names;      // SQUEUE_NAMES: -n
  std::optional<std::string> squeue_partition;  // SQUEUE_PARTITION: -p
  std::optional<std::string> squeue_qos;        // SQUEUE_QOS: -q
  std::optional<std::string> squeue_states;     // SQUEUE_STATES: -t
  std::optional<std::string> squeue_users;      // SQUEUE_USERS: -u
  bool squeue_array = false;                    // SQUEUE_ARRAY set (to anything): -r
  uint32_t uid = 0;                             // --me
  // The uid of a user name or number (-u); nullopt when unknown (or unset).
  std::function<std::optional<uint32_t>(const std::string&)> lookup_user;
};

// One item of -s: "JOB.STEP" or "JOB_TASK.STEP".
struct StepSelector {
  uint32_t job_id = 0;
  std::optional<uint32_t> array_task;
  uint32_t step_id = 0;
};

enum class InfoRequest { kNone, kHelp, kUsage, kVersion };

struct SqueueOptions {
  bool no_header = false;               // -h
  bool long_format = false;             // -l: STATE and TIME_LIMIT columns, and a date line first
  bool expand_arrays = false;           // -r: one row per array task
  std::string format;                   // -o (or SQUEUE_FORMAT); empty = -O or the default
  std::string format_long;              // -O (or SQUEUE_FORMAT2); empty = -o or the default
  std::string sort;                     // -S (or SQUEUE_SORT); empty = squeue's default order
  std::vector<std::string> jobs;        // -j: "8", "5" (a whole array), "5_1"
  std::vector<std::string> users;       // -u, as given
  std::vector<uint32_t> user_ids;       // -u, resolved (and --me)
  std::vector<std::string> accounts;    // -A
  std::vector<std::string> names;       // -n / --name
  std::vector<std::string> partitions;  // -p
  std::vector<std::string> qos;         // -q
  std::vector<std::string> nodes;       // -w, expanded
  std::vector<canopy::v1::JobState> states;  // -t; empty = default
  bool all_states = false;                   // -t all
  bool start = false;  // --start: pending jobs only, with their expected start, earliest first
  bool steps = false;  // -s: steps instead of jobs
  std::vector<StepSelector> step_list;    // -s LIST
  bool json = false;                      // --json
  bool noconvert = false;                 // --noconvert
  int iterate_seconds = 0;                // -i; 0 = once
  InfoRequest info = InfoRequest::kNone;  // --help, --usage, -V (the first one given)
  // Messages squeue prints ("squeue: error: ...") and goes on: -u with an unknown user.
  std::vector<std::string> warnings;
};

// InvalidArgument whose message is what squeue prints after "squeue: " (getopt's lines with
// the "Try \"squeue --help\"" hint; "error: Invalid job id: X"; "error: Invalid job state
// specified: X" and the valid ones; "error: Invalid job_step id: X.??"; "error: --iterate=X";
// "error: Invalid node name X"; "error: -O (--Format) is incompatible with -o (--format)";
// "fatal: Options -o(--format) and -l(--long) are mutually exclusive. ..."; "error:
// Unrecognized option: X", after which squeue prints its usage on stdout). squeue exits 1 for
// all of them.
absl::StatusOr<SqueueOptions> ParseSqueueArgs(const std::vector<std::string>& args,
                                              const SqueueEnvironment& env = {});

}  // namespace canopy::ctl::squeue
