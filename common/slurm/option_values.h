// Values of the job options that sbatch, srun and salloc share (Slurm 22.05 parses them once, in
// src/common/slurm_opt.c and proc_args.c, and so do we): node counts, task and CPU counts,
// --mem, --time, --gres/--gpus, --export, --signal and hostlists; plus signal names, which
// scancel -s reads too. Pure functions; thread-safe.
//
// Errors are InvalidArgument whose message is what the command prints after its "CMD: "
// prefix, e.g. "error: Invalid --time specification" (the tests in sbatch_options_test.cc were
// taken from Slurm 22.05.8's sbatch).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace canopy::slurm {

// -N, --nodes=MIN[-MAX]: "2" is 2-2, "-4" is 1-4. Counts are 0..2147483647.
// "error: \"X\" is not a valid node count", or "error: Maximum node count MAX is less than
// minimum node count MIN".
struct NodeCount {
  int64_t min = 1;
  int64_t max = 1;
};
absl::StatusOr<NodeCount> ParseNodeCount(absl::string_view value);

// A count that must be 1..2147483647 (--ntasks, --cpus-per-task, --switches, ...):
// "error: Invalid numeric value \"X\" for --LONG_NAME."
absl::StatusOr<int64_t> ParsePositiveCount(absl::string_view value, absl::string_view long_name);

// --mem: Slurm's str_to_mbytes, digits then an optional unit K/M/G/T (any case; M by default)
// and an optional 'B'. Kibibytes round up to whole MiB; 0 means all of the node's memory.
// "error: Invalid --mem specification".
absl::StatusOr<int64_t> ParseMemMib(absl::string_view value);

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

// --export=ALL|NONE|[ALL,]VAR[,VAR=value...].
struct SbatchExport {
  bool all = true;  // propagate the submitter's whole environment ("ALL"; false for NONE/lists)
  // Each named item, as written: "VAR" (copy from the environment) or "VAR=value".
  std::vector<std::string> variables;
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
