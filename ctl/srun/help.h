// What srun prints for -h/--help, --usage and -V/--version (and --hint=help, --cpu-bind=help),
// as Slurm 22.05's srun prints them. The help keeps Slurm's sections, order and wording but
// lists only the options Canopy's srun accepts (options.h); the usage line is Slurm's whole.
// Pure; thread-safe.
#pragma once

#include <string>

#include "common/slurm/option_values.h"

namespace canopy::ctl::srun {

// The text for `request` (kNone: ""), ending with a newline.
std::string SrunInfoText(slurm::InfoRequest request);

}  // namespace canopy::ctl::srun
