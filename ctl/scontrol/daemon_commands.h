// scontrol reconfigure and scontrol notify: requests to canopyd that print nothing on success
// and Slurm's "<what> error: <reason>" on failure.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace canopy::ctl::scontrol {

// reconfigure: canopyd re-reads its configuration and restarts on it (controller.proto). With
// `verbose`, the changes canopyd found are listed on stderr. Quiet (-Q) drops the error line.
int Reconfigure(bool quiet, int verbose, std::ostream& err);

// notify JOBID MESSAGE...: the words after the id are joined with spaces, as Slurm does.
int Notify(const std::vector<std::string>& args, std::ostream& err);

}  // namespace canopy::ctl::scontrol
