// srun's command line (the options Canopy serves), parsed by the getopt engine with srun's
// table and Slurm's shared value parsers (common/slurm/getopt.h, option_values.h). Pure;
// thread-safe.
//
// Options: -N/--nodes, -n/--ntasks, --ntasks-per-node, -c/--cpus-per-task, -l/--label,
// -o/--output, -e/--error, -J/--job-name, --jobid, -D/--chdir, --export, -p/--partition,
// -t/--time, -w/--nodelist, -x/--exclude, --exclusive, -A/--account, --gpus-per-node, --gres,
// -v/--verbose; unique prefixes of the long names too ("--part"), as getopt_long takes them.
// Like srun, parsing stops at the first non-option: it and the rest are the command.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
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
  bool exclusive = false;
  std::string account;
  std::optional<int> gpus_per_node;
  std::string gpu_type;
  int verbose = 0;
  std::vector<std::string> command;
};

// InvalidArgument with srun's wording (printed after "srun: ") for a bad option or value
// (getopt's texts end with the "Try \"srun --help\"" line), or no command ("fatal: No command
// given to execute.").
absl::StatusOr<SrunOptions> ParseSrunArgs(const std::vector<std::string>& args);

}  // namespace canopy::ctl::srun
