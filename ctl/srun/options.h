// srun's command line (the options Canopy serves), parsed by the getopt engine with srun's
// table and Slurm's shared value parsers (common/slurm/getopt.h, option_values.h). Pure;
// thread-safe.
//
// Options: -N/--nodes, -n/--ntasks, --ntasks-per-node, -c/--cpus-per-task, -l/--label,
// -o/--output, -e/--error, -J/--job-name, --jobid, -D/--chdir, --export, -p/--partition,
// -t/--time, -w/--nodelist, -x/--exclude, --exclusive[=user|mcs|exclusive|oversubscribe],
// -A/--account, --gpus-per-node, --gres, -v/--verbose; accepted with their values checked as
// Slurm 22.05's srun does (and recorded in the allocation srun submits where scontrol or sacct
// would show them): --comment, --wckey, --mail-type, --mail-user, --open-mode, --propagate,
// --gpus-per-task, --gpu-bind, --cpus-per-gpu, --mem-per-gpu, -m/--distribution, --mpi,
// --cpu-bind (and OpenMPI's --cpu_bind), --hint, -O/--overcommit, --overlap, -u/--unbuffered,
// --reservation, --deadline, --delay-boot, --container, --uid, --gid, -W/--wait=SECONDS,
// --test-only; and -h/--help, --usage, -V/--version. Unique prefixes of the long names too
// ("--part"), as getopt_long takes them. Like srun, parsing stops at the first non-option: it
// and the rest are the command.
//
// Input environment variables (srun(1)) are read for the options Canopy only checks or records:
// SLURM_CONTAINER, SLURM_CPU_BIND, SLURM_CPUS_PER_GPU, SLURM_DELAY_BOOT, SLURM_DISTRIBUTION,
// SLURM_GPU_BIND, SLURM_GPUS_PER_TASK, SLURM_HINT, SLURM_MEM_PER_GPU, SLURM_MPI_TYPE,
// SLURM_OPEN_MODE, SLURM_OVERCOMMIT, SLURM_OVERLAP, SLURM_RESERVATION, SLURM_UNBUFFEREDIO,
// SLURM_WCKEY; the command line wins.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/slurm/getopt.h"
#include "common/slurm/option_values.h"

namespace canopy::ctl::srun {

struct SrunOptions {
  std::optional<int> nodes;      // -N MIN[-MAX]: MIN
  std::optional<int> max_nodes;  // MAX
  std::optional<int> ntasks;
  std::optional<int> ntasks_per_node;
  std::optional<int> cpus_per_task;
  bool label = false;
  std::string output;
  std::string error;
  std::string job_name;
  std::optional<uint32_t> jobid;
  std::string chdir;
  std::optional<slurm::SbatchExport> export_env;
  std::string partition;
  std::optional<absl::Duration> time_limit;  // InfiniteDuration() = no limit
  std::string nodelist;
  std::string exclude;
  bool exclusive = false;  // --exclusive, =exclusive, =user or =mcs
  slurm::ExclusiveMode exclusive_mode = slurm::ExclusiveMode::kUnset;
  std::string account;
  std::optional<int> gpus_per_node;
  std::string gpu_type;
  int verbose = 0;
  // Checked and recorded (see the header comment).
  std::string comment;
  std::string wckey;
  std::optional<uint16_t> mail_type;  // slurm::kMail* bits
  std::string mail_user;
  slurm::OpenMode open_mode = slurm::OpenMode::kUnset;
  std::optional<std::string> propagate;  // bare --propagate is "ALL"
  std::optional<int> gpus_per_task;
  std::string gpu_bind;
  std::optional<int> cpus_per_gpu;
  std::optional<int64_t> mem_per_gpu_mib;
  std::string distribution;  // as Slurm prints it
  std::string mpi;
  std::string cpu_bind;
  std::optional<std::string> hint;
  bool overcommit = false;
  // --overlap: the step may share CPUs with the job's other steps. Canopy's steps always do (a
  // step reserves nothing inside its allocation), so this is what every step gets; accepted so
  // that `srun --jobid=ID --overlap CMD` (attach to a running job) works as in Slurm.
  bool overlap = false;
  // -u, --unbuffered: task output is printed as it arrives instead of by whole lines (submitit
  // runs its tasks this way). With -l, lines are still assembled so each can be labelled.
  bool unbuffered = false;
  std::string reservation;
  std::optional<absl::Time> deadline;
  std::optional<absl::Duration> delay_boot;
  std::string container;
  std::string uid;  // --uid, as written (root only: RunSrun checks and resolves it)
  std::string gid;
  std::optional<uint32_t> run_as_uid;  // --uid and --gid as RunSrun resolved them
  std::optional<uint32_t> run_as_gid;
  std::optional<int> wait_seconds;  // -W, --wait
  bool test_only = false;
  // --help, --usage, --version, --hint=help, --cpu-bind=help: print and exit instead of running.
  slurm::InfoRequest info = slurm::InfoRequest::kNone;
  std::vector<std::string> command;
  // The SPANK plugins' options given (SrunInput::plugin_options), as (name, value) in order.
  std::vector<std::pair<std::string, std::string>> plugin_options;
};

// What parsing needs from outside: srun's environment (the input variables above) and the
// moment --deadline is relative to.
struct SrunInput {
  std::map<std::string, std::string> env;
  absl::Time now = absl::UnixEpoch();
  absl::TimeZone tz = absl::UTCTimeZone();
  // The site's SPANK plugins' options, accepted like srun's own.
  std::vector<slurm::ExtraOption> plugin_options;
};

// InvalidArgument with srun's wording (printed after "srun: ") for a bad option or value
// (getopt's texts end with the "Try \"srun --help\"" line), or no command ("fatal: No command
// given to execute."); the error carries srun's exit status (slurm::ExitCodeOf). --help,
// --usage and --version stop parsing where they stand (srun acts on options in order) and set
// `info`, as do --cpu-bind=help and --hint=help; no command is needed then.
absl::StatusOr<SrunOptions> ParseSrunArgs(const std::vector<std::string>& args,
                                          const SrunInput& input = {});

}  // namespace canopy::ctl::srun
