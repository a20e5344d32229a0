// The sbatch/srun option values Canopy checks with Slurm's syntax and messages and records on
// the job (or only checks), without acting on them yet: --mail-type, --distribution, --hint,
// --cpu-bind, --gpu-bind, --deadline, --uid/--gid, --get-user-env, --propagate. The values
// Canopy acts on are in option_values.h. Errors carry Slurm's text and exit status the same way
// (WithExitCode). Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace canopy::slurm {

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
