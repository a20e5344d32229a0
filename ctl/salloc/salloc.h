// `salloc`: an interactive allocation. Submits an allocation-only job (as srun does outside
// one), waits until it runs, then runs the command (default: the user's $SHELL) on this host
// with the allocation's SLURM_* variables (SLURM_JOB_ID, SLURM_JOB_NODELIST, ...), so that srun
// inside it starts steps of the job. When the command ends the allocation is relinquished with
// its exit code; when the allocation is revoked first (scancel, time limit), the command gets
// SIGHUP and SIGTERM, then SIGKILL after a grace period. --no-shell leaves the allocation
// running and exits. Messages on stderr are salloc's ("Granted job allocation N", ...).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace canopy::ctl::salloc {

// `args` excludes the program name. Returns the command's exit status (128 + N when signal N
// ended it), or 1 when no allocation was made.
int RunSalloc(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace canopy::ctl::salloc
