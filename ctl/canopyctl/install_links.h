// `canopyctl install-links DIR`: makes every Slurm front end (sbatch, srun, squeue, ...) a
// symbolic link to canopyctl in DIR, so that Canopy answers to Slurm's command names once DIR is
// first in PATH. The deploy scripts and packages use it instead of a list of their own.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace canopy::ctl::canopyctl {

// The names canopyctl answers to besides its own (ctl/main.cc dispatches on them).
inline constexpr const char* kSlurmFrontEnds[] = {"sbatch", "srun",     "salloc", "sattach",
                                                  "squeue", "scancel",  "sinfo",  "scontrol",
                                                  "sacct",  "sacctmgr", "sshare", "sprio"};

struct InstallLinksOptions {
  std::string dir;     // where the links go; must exist
  std::string target;  // what they point to (canopyctl's absolute path)
  bool force = false;  // replace regular files of the same names (a Slurm install's binaries)
};

// `install-links [--force] DIR`: InvalidArgument with canopyctl's usage line for anything else.
absl::Status ParseInstallLinksArgs(const std::vector<std::string>& args,
                                   InstallLinksOptions& options);

// Creates or replaces each link and prints "DIR/NAME -> TARGET" per link to `out`. A link that
// already points to `target` is left alone; another link is replaced. A file that is not a link
// is kept unless `force` (FailedPrecondition naming it and --force): Slurm's own commands may be
// installed there. NotFound when DIR does not exist; the first system error stops the rest.
absl::Status InstallLinks(const InstallLinksOptions& options, std::ostream& out);

}  // namespace canopy::ctl::canopyctl
