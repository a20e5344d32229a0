// sbatch's command line and #SBATCH directives, parsed into our own SbatchOptions value.
//
// Pure functions with no I/O (the caller reads the script file); thread-safe. The grammar and the
// error texts follow Slurm 22.05's sbatch, checked against the real command (see the tests):
// getopt_long rules for the command line, Slurm's own word splitting for directives, directives
// first and the command line winning.
//
// Error messages: every failure is InvalidArgument whose message is exactly what sbatch prints
// after its "sbatch: " prefix, one line per output line, e.g. "error: Invalid --time
// specification" or "unrecognized option '--bogus'\nTry \"sbatch --help\" for more information".
// A front end reproduces sbatch's output by printing "sbatch: " before each line.
//
// Options are parsed by the getopt engine (getopt.h), so getopt_long's rules hold, unique
// prefixes of long names included ("--ti" is --time); values by option_values.h, which srun
// shares. Each error carries the exit status sbatch 22.05 ends with (ExitCodeOf in
// option_values.h): 255 for getopt's errors and most bad values, 1 for parse_int's ("Invalid
// numeric value"), for fatal() and for the checks sbatch makes after all options.
//
// Sources, in Slurm's order, later ones winning: #SBATCH directives, then the input environment
// variables of sbatch(1) (SBATCH_ACCOUNT, SBATCH_TIMELIMIT, SLURM_HINT, ...: the ones of the
// options below; kSbatchEnvironment in the .cc lists them), then the command line. As in Slurm,
// a flag variable ("SBATCH_REQUEUE") set to "", "yes" or a non-zero number sets the flag and any
// other value unsets it, and an empty value of an optional-value option means "no value".
//
// Differences from sbatch, all deliberate: only the options below are known, so a prefix that
// sbatch finds ambiguous with an option Canopy lacks ("--ti": --time, --time-min) is accepted
// here (and "--v" is --version, sbatch's -v/--verbose and -Q/--quiet being absent); "--nice=abc"
// is rejected (sbatch reads it as 0); "-N 2-" is rejected as not a valid
// node count; signal numbers above 127 and a bad "--switches=N@TIME" wait are rejected; -w/-x
// must be valid hostlist expressions (ExpandHostlist); bad --gpus values give the gres error
// text (sbatch only fails later, in the select plugin); the unmatched-quote error omits the
// script's file name; in the first pass a getopt error ends the parse (sbatch prints getopt's line
// and goes on looking for --help); "-m plane" without "=SIZE" does not read
// SLURM_DIST_PLANESIZE.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/slurm/getopt.h"
#include "common/slurm/option_values.h"
#include "common/slurm/recorded_option_values.h"

namespace canopy::slurm {

// Where a value came from, for Slurm's checks that tell them apart (--mem and --mem-per-gpu are
// mutually exclusive on the command line, and the command line overrides the environment).
// Directives count as the command line, as in Slurm.
enum class OptionSource { kUnset, kEnvironment, kCommandLine };

struct SbatchOptions {
  std::string job_name;   // -J, --job-name
  std::string partition;  // -p, --partition
  std::string account;    // -A, --account
  std::string qos;        // -q, --qos (the QOS name, as written)
  // -N, --nodes=MIN[-MAX]; "-N 2" sets both to 2.
  std::optional<int64_t> min_nodes;
  std::optional<int64_t> max_nodes;
  std::optional<int64_t> ntasks;            // -n, --ntasks
  std::optional<int64_t> ntasks_per_node;   // --ntasks-per-node
  std::optional<int64_t> cpus_per_task;     // -c, --cpus-per-task
  std::optional<int64_t> mem_per_node_mib;  // --mem; 0 means "all the node's memory"
  // GPUs per node from --gres=gpu[:TYPE][:N] or --gpus-per-node=[TYPE:]N; gpu_type is "" when
  // any type will do.
  std::optional<int64_t> gpus_per_node;
  std::string gpu_type;
  // --gpus, --gpus-per-node and --gpus-per-task as written ("h100:2"), for the job's
  // SLURM_GPUS* variables; --gres clears gpus_per_node_text (it sets no such variable).
  std::string gpus_text;
  std::string gpus_per_node_text;
  std::string gpus_per_task_text;
  std::vector<std::string> other_gres;  // non-GPU items of --gres, as written ("nvme:1")
  std::optional<int64_t> gpus_total;    // -G, --gpus=[TYPE:]N (type goes to gpu_type)
  ExclusiveMode exclusive = ExclusiveMode::kUnset;
  // -t, --time. Seconds round up to whole minutes and 0 means no limit, as sbatch does; no limit
  // is absl::InfiniteDuration().
  std::optional<absl::Duration> time_limit;
  std::optional<int64_t> switches;  // --switches=COUNT[@MAX_WAIT]
  std::optional<absl::Duration> switches_wait;
  std::string nodelist;  // -w, --nodelist (a hostlist expression, checked to expand)
  std::string exclude;   // -x, --exclude (likewise)
  std::string output;    // -o, --output (a filename pattern; see output_pattern.h)
  std::string error;     // -e, --error
  OpenMode open_mode = OpenMode::kUnset;
  std::string chdir;                       // -D, --chdir
  std::string input;                       // -i, --input (a filename pattern for stdin)
  std::optional<SbatchExport> export_env;  // --export; unset means sbatch's default (ALL)
  std::optional<bool> requeue;             // --requeue (true) / --no-requeue (false)
  bool hold = false;                       // -H, --hold
  bool parsable = false;                   // --parsable
  bool quiet = false;      // -Q, --quiet: nothing on stdout or stderr but errors (not even the id)
  bool test_only = false;  // --test-only
  std::string wrap;        // --wrap
  std::string array;       // -a, --array, as written
  std::optional<int64_t> nice;               // --nice[=ADJ]; bare "--nice" is 100
  std::optional<SbatchSignal> signal;        // --signal
  std::string begin;                         // -b, --begin, as written (begin_time.h)
  std::string dependency;                    // -d, --dependency, as written (dependency.h)
  std::optional<bool> kill_on_invalid_dep;   // --kill-on-invalid-dep=yes|no
  std::string comment;                       // --comment
  std::string wckey;                         // --wckey
  std::optional<uint16_t> mail_type;         // --mail-type: kMail* bits, ORed over repeats
  std::string mail_user;                     // --mail-user
  std::string export_file;                   // --export-file=FILE|FD, as written
  std::optional<GetUserEnv> get_user_env;    // --get-user-env[=TIMEOUT][S|L]
  std::optional<std::string> propagate;      // --propagate[=RLIMITS]; bare is "ALL"
  std::optional<int64_t> gpus_per_task;      // --gpus-per-task=[TYPE:]N (type goes to gpu_type)
  std::string gpu_bind;                      // --gpu-bind, checked (CheckGpuBind)
  std::optional<int64_t> cpus_per_gpu;       // --cpus-per-gpu
  std::optional<int64_t> mem_per_gpu_mib;    // --mem-per-gpu
  std::string distribution;                  // -m, --distribution, as Slurm prints it
  std::optional<std::string> hint;           // --hint, checked after all options
  bool overcommit = false;                   // -O, --overcommit
  std::string reservation;                   // --reservation
  std::string deadline;                      // --deadline, as written (begin_time.h)
  std::optional<absl::Duration> delay_boot;  // --delay-boot (plain numbers are minutes)
  std::string container;                     // --container (an OCI bundle path)
  std::string uid;                           // --uid, as written (root only: see job_spec.h)
  std::string gid;                           // --gid, likewise
  bool wait = false;                         // -W, --wait
  // --hint=help: the caller prints the hint help and exits with 1 instead of submitting.
  InfoRequest info = InfoRequest::kNone;
  OptionSource mem_source = OptionSource::kUnset;          // of mem_per_node_mib
  OptionSource mem_per_gpu_source = OptionSource::kUnset;  // of mem_per_gpu_mib
  std::string script_path;               // the first non-option argument of the command line
  std::vector<std::string> script_args;  // the arguments after it
  // Options of the site's SPANK plugins (the `extra` options below), as (name, value) in the
  // order given: directives first, the command line last. A value-less option has "".
  std::vector<std::pair<std::string, std::string>> plugin_options;
};

// sbatch's first pass, as Slurm's: only -h/--help, --usage and -V/--version are acted on, the
// first of them on the command line winning (before any bad value elsewhere on the line);
// kNone when there is none. Errors: getopt's (an unknown option, a missing value).
// `extra`: the SPANK plugins' options, accepted everywhere sbatch's own are.
absl::StatusOr<InfoRequest> FindSbatchInfoRequest(const std::vector<std::string>& argv,
                                                  absl::Span<const ExtraOption> extra = {});

// Parses sbatch's arguments (without argv[0]) by getopt_long's rules (getopt.h): "--opt=value",
// "--opt value", unique prefixes ("--part=gpu"), "-N 2", "-N2", bundles ("-HN2"); a required
// value is taken from the next argument even if it starts with '-'. Parsing stops at the first
// non-option argument or after "--": that argument is script_path and the rest are script_args.
// InvalidArgument (see the header comment for the wording) for an unknown option, a missing or
// unexpected value, or a bad value; the checks of ParseSbatch after all options apply too.
absl::StatusOr<SbatchOptions> ParseSbatchCommandLine(const std::vector<std::string>& argv,
                                                     absl::Span<const ExtraOption> extra = {});

// Returns the arguments of a script's #SBATCH directives, in order, as sbatch reads them: lines
// that begin with "#SBATCH" (in column 1) up to the first line that is neither blank nor a
// comment (the shebang and indented "#" lines are comments). The text after "#SBATCH" is split
// into words at whitespace; '...' and "..." quote, a backslash escapes the next character
// (except that it cannot join words), an unquoted '#' ends the line, and an empty word (such as
// "" or the '#' itself) ends the line too. Does not check the first line (see ParseSbatch).
// InvalidArgument "fatal: line N: Unmatched `Q` in [REST]" for an unterminated quote (sbatch
// names the file too).
absl::StatusOr<std::vector<std::string>> ExtractSbatchDirectives(absl::string_view script);

// The scripts sbatch refuses before it looks at options, with Slurm 22.05's words and exit
// status 1, in its order: an empty one, one of only whitespace before any NUL byte, one not
// starting with "#!", one holding a NUL byte, one with DOS line breaks.
absl::Status CheckBatchScript(absl::string_view script);

// Parses a batch script's directives, then the input environment variables in `env` (sbatch's
// environment), then the command line `argv`; later sources replace earlier ones. Then sbatch's
// checks after all options: --mem and --mem-per-gpu both on the command line ("fatal: --mem,
// --mem-per-cpu, and --mem-per-gpu are mutually exclusive.") or both from the environment
// ("fatal: SLURM_MEM_PER_CPU, SLURM_MEM_PER_GPU, and SLURM_MEM_PER_NODE are mutually
// exclusive."); one on the command line drops the other's variable), and --hint (CheckHint;
// "help" sets `info`). InvalidArgument, in sbatch's words, for an empty script ("error: Batch
// script is empty!"), a first line without "#!", DOS line breaks, a directive that is not an
// option ("error: Invalid directive found in batch script: X"), or any error of
// ParseSbatchCommandLine. A script path in `argv` is kept in script_path but not read.
absl::StatusOr<SbatchOptions> ParseSbatch(absl::string_view script,
                                          const std::vector<std::string>& argv,
                                          const std::map<std::string, std::string>& env = {},
                                          absl::Span<const ExtraOption> extra = {});

}  // namespace canopy::slurm
