// `srun`: runs a command as a job step. Inside an allocation (SLURM_JOB_ID or --jobid) it
// creates a step of that job; outside, it first submits an allocation-only job, waits for it to
// run, and completes it with the step's exit code at the end. Task output comes back over
// srun's StepIo server (step_io_server.h) and is printed per line (step_output.h). --help,
// --usage and --version print Slurm's texts (help.h); --test-only only asks when an allocation
// would start.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ctl/srun/options.h"

namespace canopy::ctl::srun {

// --uid/--gid: root only (checked again by canopyd), resolved to ids into run_as_uid/gid
// (slurm::ResolveRunAs). salloc resolves its own the same way.
absl::Status ResolveUidAndGid(SrunOptions& options);

// `args` excludes the program name; `controller` is canopyctl's --controller (may be empty).
int RunSrun(const std::vector<std::string>& args, const std::string& controller, std::ostream& out,
            std::ostream& err);

}  // namespace canopy::ctl::srun
