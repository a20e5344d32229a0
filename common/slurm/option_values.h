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

// --mail-type=TYPE[,TYPE...] as Slurm's parse_mail_type: NONE, BEGIN, END, FAIL, REQUEUE, ALL
// (= BEGIN,END,FAIL,REQUEUE,INVALID_DEPEND,STAGE_OUT), INVALID_DEPEND, STAGE_OUT, TIME_LIMIT,
// TIME_LIMIT_90, TIME_LIMIT_80, TIME_LIMIT_50, ARRAY_TASKS, in any case. As in Slurm, NONE ends
// the list (0), unknown words are skipped as long as one word is known, and empty words are
// ignored. The result is a set of kMail* bits. "error: Invalid --mail-type specification" when
// no word is known.
inline constexpr uint16_t kMailBegin = 0x0001;
inline constexpr uint16_t kMailEnd = 0x0002;
inline constexpr uint16_t kMailFail = 0x0004;
inline constexpr uint16_t kMailRequeue = 0x0008;
inline constexpr uint16_t kMailTime100 = 0x0010;
inline constexpr uint16_t kMailTime90 = 0x0020;
inline constexpr uint16_t kMailTime80 = 0x0040;
inline constexpr uint16_t kMailTime50 = 0x0080;
inline constexpr uint16_t kMailStageOut = 0x0100;
inline constexpr uint16_t kMailArrayTasks = 0x0200;
inline constexpr uint16_t kMailInvalidDepend = 0x0400;
absl::StatusOr<uint16_t> ParseMailType(absl::string_view value);
// The bits as Slurm prints them (scontrol's MailType=): "NONE", or the names joined by ',' in
// the order ARRAY_TASKS, INVALID_DEPEND, BEGIN, END, FAIL, REQUEUE, STAGE_OUT, TIME_LIMIT_50,
// TIME_LIMIT_80, TIME_LIMIT_90, TIME_LIMIT.
std::string MailTypeString(uint16_t bits);

// -m, --distribution=NODE[:SOCKET[:CORE]][,pack|nopack] | pack | nopack | plane=SIZE, as
// Slurm's verify_dist_type: NODE is block, cyclic, arbitrary (or hostfile) or '*' (block);
// SOCKET and CORE are block, cyclic, fcyclic or '*' (cyclic, then the socket level's). Returns
// the distribution as Slurm prints it ("block:cyclic", "cyclic,pack", "plane=4").
// "error: Invalid --distribution specification", after "error: Invalid plane size or size not
// specified" for a plane without a size of 1..2147483647 (SLURM_DIST_PLANESIZE is not read).
absl::StatusOr<std::string> ParseDistribution(absl::string_view value);

// --hint=compute_bound|memory_bound|[no]multithread[,...] as Slurm's verify_hint. true for
// "help" (the caller prints the hint help text). "error: unrecognized --hint argument \"WORD\", see
// --hint=help" (exit status 1: Slurm checks hints after all options).
absl::StatusOr<bool> CheckHint(absl::string_view value);

// srun's --cpu-bind as Slurm's slurm_verify_cpu_bind: q[uiet], v[erbose], no[ne], rank,
// map_cpu:LIST, mask_cpu:LIST, rank_ldom, map_ldom:LIST, mask_ldom:LIST, sockets, cores,
// threads, ldoms (and the singular forms), one_thread, joined by ','. true for "help" (the caller
// prints the --cpu-bind help text). "error: unrecognized --cpu-bind argument \"WORD\"" or "error:
// missing list for \"--cpu-bind=map_cpu:<list>\"", then "fatal: Failed to parse --cpu-bind=
// values." (exit status 1).
absl::StatusOr<bool> CheckCpuBind(absl::string_view value);

// --gpu-bind=[verbose,]{closest|map_gpu:LIST|mask_gpu:LIST|none|per_task:N|single:N} as
// Slurm's tres_bind_verify_cmdline of "gpu:VALUE" (';' separates further TRES items, which
// must be gpu ones). "error: Invalid --gpu-bind argument: gpu:VALUE", after "error: Failed to
// validate ITEM, offending character is C" for a bad map/mask list.
absl::Status CheckGpuBind(absl::string_view value);

// --deadline: a moment as --begin reads them (begin_time.h), relative to `now` in `tz`.
// "error: Invalid time specification (pos=N): VALUE" then "error: Invalid --deadline
// specification", as Slurm's parse_time and arg_set_deadline print them.
absl::StatusOr<absl::Time> ParseDeadline(absl::string_view value, absl::Time now,
                                         absl::TimeZone tz);

// --uid/--gid (Slurm's uid_from_string/gid_from_string): root only (`caller_uid` 0), then a
// number or a name `lookup` knows. "error: --LONG_NAME only permitted by root user", "error:
// Invalid --LONG_NAME specification" (both exit status 255).
absl::StatusOr<uint32_t> ResolveRunAs(
    absl::string_view value, absl::string_view long_name, uint32_t caller_uid,
    absl::FunctionRef<std::optional<uint32_t>(const std::string&)> lookup);

// --get-user-env[=TIMEOUT][S|L]: the timeout (0 when not given) and the mode letter ('\0',
// 'S' or 'L'). As Slurm's, only the first letter after the number counts.
// "error: Invalid --get-user-env specification".
struct GetUserEnv {
  int64_t timeout = 0;
  char mode = '\0';
};
absl::StatusOr<GetUserEnv> ParseGetUserEnv(std::optional<absl::string_view> value);

// --propagate[=RLIMIT[,RLIMIT...]]: ALL, NONE, or names among AS, CORE, CPU, DATA, FSIZE,
// MEMLOCK, NOFILE, NPROC, RSS, STACK (with or without "RLIMIT_"; case matters, as in Slurm's
// parse_rlimits; ',', blanks and newlines separate). "error: Bad rlimit name: NAME" then
// "error: --propagate=VALUE is not valid." (exit status 1).
absl::Status CheckPropagate(absl::string_view value);

}  // namespace canopy::slurm
