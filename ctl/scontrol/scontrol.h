// `scontrol`, as far as Canopy serves it (options.h): show hostnames|hostlist|hostlistsorted|
// topology|job|node|partition|config|reservation|steps, update NodeName=... State=DRAIN|DOWN|
// RESUME Reason=..., update job ID KEY=VALUE, hold|uhold|release|requeue|requeuehold|top|
// suspend|resume JOB_LIST (jobs.h), write batch_script (batch_script.h), ping. Output and exit
// codes follow Slurm 22.05 (tests/data/slurm-reference/cli-outputs-22.05.txt). The thin main:
// reads $SLURM_NODELIST and hostlist files, asks canopyd, prints. Thread-compatible.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace canopy::ctl::scontrol {

// `args` excludes the program name.
int RunScontrol(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace canopy::ctl::scontrol
