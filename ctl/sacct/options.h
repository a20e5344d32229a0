// sacct's command line, by getopt_long's rules with sacct's table (common/slurm/getopt.h):
// options and operands mix, and any operand is an error ("Unknown arguments"), as in Slurm
// 22.05's sacct. Pure: the present moment, the time zone, the caller's uid and SACCT_FORMAT come
// in through SacctEnvironment. Thread-safe.
//
// Served: -a/--allusers, -A/--accounts, -b/--brief, -c/--completion, --delimiter, -D/--duplicates,
// -e/--helpformat, -E/--endtime, -h/--help, -j/--jobs, --json, -l/--long, -n/--noheader,
// --name, --noconvert, -N/--nodelist, -o/--format (also --fields), -p/--parsable,
// -P/--parsable2, -q/--qos, -r/--partition, -s/--state, -S/--starttime, -u/--user (also --uid),
// --usage, -V/--version, -X/--allocations. Accepted and ignored, since Canopy runs one cluster
// and has no job statistics to truncate: -L/--allclusters, -M/--clusters, --federation,
// --local, -T/--truncate, -v/--verbose.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "canopy/v1/types.pb.h"
#include "ctl/output/print_fields.h"
#include "ctl/sacct/fields.h"

namespace canopy::ctl::sacct {

// What the parse depends on besides the arguments: sacct reads the clock (-S now-1hour, the
// default window from midnight), the local time zone, getuid() (root sees every user's jobs),
// the SACCT_FORMAT environment variable and the user database (-u NAME).
struct SacctEnvironment {
  absl::Time now = absl::UnixEpoch();
  absl::TimeZone tz = absl::UTCTimeZone();
  uint32_t uid = 0;
  std::optional<std::string> sacct_format;
  // The uid of a user name; nullopt for an unknown name (or when unset).
  std::function<std::optional<uint32_t>(const std::string&)> lookup_user;
};

// One item of -j: "ID", "ID_TASK", "ID.STEP", "ID_TASK.STEP" (STEP: a number, "batch" or
// "extern").
struct JobSelector {
  uint32_t job_id = 0;
  std::optional<uint32_t> array_task;
  std::optional<std::string> step;  // set: show only this step of the job, not its job line
};

struct SacctOptions {
  std::vector<JobSelector> jobs;                         // -j
  std::vector<FieldColumn> columns;                      // -o / -b / -l / SACCT_FORMAT / default
  output::FieldsMode mode = output::FieldsMode::kTable;  // -p / -P
  std::string delimiter = "|";                           // --delimiter (with -p / -P)
  bool no_header = false;                                // -n
  bool allocations = false;                              // -X: job lines only
  bool duplicates = false;                               // -D
  bool completion = false;                               // -c: the job completion view
  bool json = false;                                     // --json
  bool noconvert = false;                                // --noconvert: memory stays in MiB
  // The window (-S / -E, or the defaults): unset = unbounded on that side.
  std::optional<absl::Time> start;
  std::optional<absl::Time> end;
  bool states_given = false;                 // -s was given
  std::vector<canopy::v1::JobState> states;  // -s: those Canopy has (see ParseSacctArgs)
  std::vector<std::string> names;            // --name
  std::vector<uint32_t> user_ids;            // -u, names resolved
  bool users_given = false;                  // -u with a list (not -1)
  bool all_users = false;                    // -a, -u -1, root, or -j / -N without -u
  std::vector<std::string> accounts;         // -A
  std::vector<std::string> partitions;       // -r
  std::vector<std::string> qos;              // -q
  std::vector<std::string> nodes;            // -N, expanded
  bool help = false;                         // -h / --help
  bool usage = false;                        // --usage
  bool version = false;                      // -V / --version
  bool helpformat = false;                   // -e / --helpformat
};

// InvalidArgument whose message is what sacct writes to stderr (without the final newline), then
// exits 1:
//   getopt's line with sacct's prefix ("sacct: invalid option -- 'Z'"; sacct prints no "Try"
//   hint); "sacct: fatal: Bad job/step specified: X"; "Invalid time specification (pos=N): X"
//   (printed bare, as parse_time does); "sacct: fatal: unrecognized job state value 'X'";
//   "sacct: error: Invalid field requested: \"X\""; "sacct: error: Unknown arguments:" followed by
//   one "sacct: error:  ARG" line per operand; "Invalid user id: X" (bare) for -u with a name
//   `lookup_user` does not know.
// States Slurm knows but Canopy never reports (SUSPENDED, BOOT_FAIL, DEADLINE, RESIZING,
// REVOKED, SPECIAL_EXIT) are accepted and match no job: `states` lacks them.
absl::StatusOr<SacctOptions> ParseSacctArgs(const std::vector<std::string>& args,
                                            const SacctEnvironment& env);

// sacct --usage, sacct --help and sacct --helpformat.
std::string SacctUsage();
std::string SacctHelp();
std::string SacctHelpFormat();

}  // namespace canopy::ctl::sacct
