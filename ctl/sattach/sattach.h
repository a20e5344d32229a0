// `sattach JOBID.STEPID`: shows a running step's output as srun does, from another terminal.
// It serves a StepIo endpoint (as srun does) and asks canopyd to have the step's agents attach
// to it (controller.proto AttachStep); each agent replays the output it still holds, then copies
// everything new. sattach ends when every task has exited (exit code: the highest task's) or
// the step's nodes all went away; Ctrl-C ends sattach only, never the step. --layout prints
// the step's layout without attaching.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace canopy::ctl::sattach {

int RunSattach(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace canopy::ctl::sattach
