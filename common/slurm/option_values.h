// Values of the job options that sbatch, srun and salloc share (Slurm 22.05 parses them once, in
// src/common/slurm_opt.c and proc_args.c, and so do we): node counts, task and CPU counts,
// --mem, --time, --gres/--gpus, --export, --signal, hostlists, --mail-type, --distribution,
// --hint, --cpu-bind, --gpu-bind, --get-user-env and --propagate; plus signal names, which
// scancel -s reads too. Pure functions; thread-safe.
//
// Errors are InvalidArgument whose message is what the command prints after its "CMD: "
// prefix, e.g. "error: Invalid --time specification" (the tests in sbatch_options_test.cc were
// taken from Slurm 22.05.8's sbatch). Some carry the exit status Slurm's command ends with
// (WithExitCode below): parse_int's and fatal()'s errors end sbatch and srun with 1, the
// option functions' own errors with 255 (exit(-1)).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace canopy::slurm {

// The exit status a command ends with for `status`, carried as a payload: `exit_code` is what
// Slurm's command exits with for this error. Returns `status` with the payload set (an OK status
// is returned unchanged).
absl::Status WithExitCode(absl::Status status, int exit_code);
// The same, unless `status` already carries an exit status.
absl::Status WithDefaultExitCode(absl::Status status, int exit_code);

// The exit status `status` asks for: its WithExitCode payload, else 255 for getopt's errors (the
// ones that end with the "Try \"CMD --help\"" line) and 1 for any other error; 0 for OK.
int ExitCodeOf(const absl::Status& status);

// What the commands print instead of running: --help, --usage, -V/--version, and the help texts
// of --hint=help and --cpu-bind=help (the front ends hold the texts: ctl/sbatch/help.h,
// ctl/srun/help.h). The caller prints the text on stdout and exits with InfoExitCode (0 for the
// first three; 1 for --hint=help and 255 for --cpu-bind=help, as Slurm's commands do, which
// treat those as failed option values).
enum class InfoRequest { kNone, kHelp, kUsage, kVersion, kHintHelp, kCpuBindHelp };
int InfoExitCode(InfoRequest request);

// --open-mode=append|truncate: only the first letter counts, in any case, as in Slurm.
// "error: Invalid --open-mode specification".
enum class OpenMode { kUnset, kAppend, kTruncate };
absl::StatusOr<OpenMode> ParseOpenMode(absl::string_view value);

// --exclusive[=exclusive|oversubscribe|user|mcs], any case; a bare --exclusive (nullopt) is
// kExclusive. "error: Invalid --exclusive specification".
enum class ExclusiveMode { kUnset, kExclusive, kOversubscribe, kUser, kMcs };
absl::StatusOr<ExclusiveMode> ParseExclusive(std::optional<absl::string_view> value);
// Whether the nodes are the job's alone (exclusive, user, mcs: Canopy gives whole nodes for all
// three), and the mode's name as JobSpec.exclusive_mode records it ("user", "mcs",
// "oversubscribe"; "" for kUnset and kExclusive).
bool ExclusiveNodes(ExclusiveMode mode);
absl::string_view ExclusiveModeName(ExclusiveMode mode);

// A flag option's input environment variable (SBATCH_REQUEUE, SLURM_OVERCOMMIT, ...): "", "yes"
// or a non-zero number set the flag; anything else unsets it (Slurm's slurm_process_option).
bool EnvironmentFlagIsSet(absl::string_view value);

// GPUs per node for --gpus-per-task: times --ntasks-per-node when given, else times the tasks -n
// spreads over `nodes` (rounding up), else times one task. Capped at 2^31-1.
int64_t GpusPerNodeForTasks(int64_t gpus_per_task, std::optional<int64_t> ntasks,
                            std::optional<int64_t> ntasks_per_node, int64_t nodes);

// -N, --nodes=MIN[-MAX]: "2" is 2-2, "-4" is 1-4. Counts are 0..2147483647.
// "error: \"X\" is not a valid node count", or "error: Maximum node count MAX is less than
// minimum node count MIN".
struct NodeCount {
  int64_t min = 1;
  int64_t max = 1;
};
absl::StatusOr<NodeCount> ParseNodeCount(absl::string_view value);

// A count that must be 1..2147483647 (--ntasks, --cpus-per-task, --switches, --cpus-per-gpu,
// ...): "error: Invalid numeric value \"X\" for --LONG_NAME." (exit status 1, parse_int's).
absl::StatusOr<int64_t> ParsePositiveCount(absl::string_view value, absl::string_view long_name);

// --mem: Slurm's str_to_mbytes, digits then an optional unit K/M/G/T (any case; M by default)
// and an optional 'B'. Kibibytes round up to whole MiB; 0 means all of the node's memory.
// "error: Invalid --mem specification".
absl::StatusOr<int64_t> ParseMemMib(absl::string_view value);
// The same for another size option (--mem-per-gpu): "error: Invalid --LONG_NAME specification".
absl::StatusOr<int64_t> ParseSizeMib(absl::string_view value, absl::string_view long_name);

// --time: a Slurm duration (time_format.h), seconds rounded up to whole minutes; "0",
// "UNLIMITED" and "INFINITE" are absl::InfiniteDuration(). "error: Invalid --time
// specification".
absl::StatusOr<absl::Duration> ParseTimeLimit(absl::string_view value);

// --gres=NAME[:TYPE][:COUNT][,...] ("none" clears). Only "gpu" items are interpreted; the
// others are kept as written. "error: Invalid generic resource (gres) specification".
struct GresRequest {
  bool none = false;                     // "--gres=none"
  std::optional<int64_t> gpus_per_node;  // from the "gpu" item (COUNT defaults to 1)
  std::string gpu_type;                  // "" when any type will do
  std::vector<std::string> other;        // non-GPU items ("nvme:1")
};
absl::StatusOr<GresRequest> ParseGres(absl::string_view value);

// --gpus / --gpus-per-node=[TYPE:]COUNT; the gres error text for a bad value.
struct TypedCount {
  std::string type;
  int64_t count = 0;
};
absl::StatusOr<TypedCount> ParseGpuCount(absl::string_view value);

// --gpus-per-task=[TYPE:]COUNT: as ParseGpuCount, and COUNT must be at least 1 (the gres error
// text otherwise; Slurm's gres_job_state_validate rejects a zero count per task).
absl::StatusOr<TypedCount> ParseGpusPerTask(absl::string_view value);

// --export=ALL|NONE|[ALL,]VAR[,VAR=value...].
struct SbatchExport {
  bool all = true;  // propagate the submitter's whole environment ("ALL"; false for NONE/lists)
  // Each item after a leading ALL or NONE, in order, as written: "VAR" (copy from the
  // environment), "VAR=value", or a later "ALL", which copies the whole environment over what
  // came before it (as Slurm 22.05 applies them: --export=X=1,ALL keeps the caller's X).
  std::vector<std::string> variables;
  std::string text;  // the value as given (SLURM_EXPORT_ENV)
};
SbatchExport ParseExport(absl::string_view value);

// The environment a job or step gets from `env` (the submitter's) by the --export rules:
// unset or ALL = all of `env`; NONE or a list = only SLURM_* variables, plus the listed ones
// ("VAR" copied if set, "VAR=value" set); "ALL,..." = all of `env` with the items applied.
// `none` is true for a bare NONE (sbatch then also drops what the job's shell would add).
struct ExportedEnvironment {
  std::map<std::string, std::string> variables;
  bool none = false;
};
ExportedEnvironment ExportEnvironment(const std::optional<SbatchExport>& export_env,
                                      const std::map<std::string, std::string>& env);

// --signal=[{R|B}:]SIG[@TIME]. "error: Invalid --signal specification".
struct SbatchSignal {
  int signal_number = 0;     // 1..127; names such as "USR1" or "SIGUSR1" are translated
  int seconds = 60;          // how long before the time limit; 0..65535
  bool batch_only = false;   // "B:" sends it to the batch shell only
  bool reservation = false;  // "R:" (also sent at the end of a reservation)
};
absl::StatusOr<SbatchSignal> ParseSignalSpec(absl::string_view value);

// A signal by number (1..127) or name, any case, with or without "SIG" ("usr1", "SIGTERM");
// nullopt if it is neither.
std::optional<int> SignalNumber(absl::string_view name);

// -w/-x and friends: OK if `value` is a valid hostlist expression, else "error: Invalid
// --LONG_NAME specification: WHY".
absl::Status CheckHostlist(absl::string_view value, absl::string_view long_name);

}  // namespace canopy::slurm
