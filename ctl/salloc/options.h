// salloc's command line. salloc asks for an allocation the way srun does outside one, so the
// options both commands have are parsed by srun's parser (ctl/srun/options.h: the same value
// checks and errors) and described by srun's BuildAllocationSpec; salloc's own are read here.
// Pure; thread-safe.
//
// Shared with srun: -A/--account, -c/--cpus-per-task, --comment, -D/--chdir, --exclusive[=...],
// --gpus-per-node, --gres, -J/--job-name, -N/--nodes, -n/--ntasks, --ntasks-per-node,
// -p/--partition, -t/--time, -w/--nodelist, -x/--exclude, --wckey, --mail-type, --mail-user,
// --reservation, --deadline, --delay-boot, --container, --uid, --gid, -O/--overcommit, --hint,
// -m/--distribution, --gpus-per-task, --cpus-per-gpu, --mem-per-gpu, -v/--verbose.
// salloc's own: --mem, -q/--qos, -H/--hold, --no-shell, --bell/--no-bell (accepted; Canopy
// rings no bell), -b/--begin, -d/--dependency, -I/--immediate[=SECS], -K/--kill-command[=SIG],
// -Q/--quiet, -h/--help, --usage, -V/--version. Like salloc, parsing stops at
// the first non-option: it and the rest are the command (default: the user's shell).
//
// Input environment variables (salloc(1)): SALLOC_ACCOUNT, SALLOC_PARTITION, SALLOC_QOS,
// SALLOC_TIMELIMIT, SALLOC_WCKEY, SALLOC_EXCLUSIVE, SALLOC_GPUS_PER_NODE, SALLOC_GRES; the
// command line wins.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/slurm/option_values.h"
#include "ctl/srun/options.h"

namespace canopy::ctl::salloc {

struct SallocOptions {
  srun::SrunOptions allocation;    // the options shared with srun
  std::optional<int64_t> mem_mib;  // --mem
  std::string qos;
  bool hold = false;
  bool no_shell = false;
  bool quiet = false;
  std::string begin;       // -b/--begin, as written (begin_time.h; needs the present moment)
  std::string dependency;  // -d/--dependency, as written (dependency.h)
  // -I/--immediate[=SECS]: give up (and cancel the request) unless allocated within SECS; zero
  // (-I alone) means at once; -I0 leaves it unset, as in Slurm.
  std::optional<absl::Duration> immediate;
  // -K/--kill-command[=SIGNAL]: when the allocation is revoked, send the command this signal
  // (SIGTERM without a value); without -K the command runs on, as in Slurm.
  std::optional<int> kill_signal;
  slurm::InfoRequest info = slurm::InfoRequest::kNone;
  std::vector<std::string> command;  // empty: the user's shell
};

// InvalidArgument with salloc's wording (printed after "salloc: ") for a bad option or value,
// carrying salloc's exit status (slurm::ExitCodeOf). --help, --usage and --version set `info`.
absl::StatusOr<SallocOptions> ParseSallocArgs(const std::vector<std::string>& args,
                                              const srun::SrunInput& input = {});

// salloc --help / --usage / --version text.
std::string SallocInfoText(slurm::InfoRequest request);

}  // namespace canopy::ctl::salloc
