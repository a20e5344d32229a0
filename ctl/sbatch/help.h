// What sbatch prints for -h/--help, --usage and -V/--version (and --hint=help), as Slurm 22.05's
// sbatch prints them. The help keeps Slurm's sections, order and wording but lists only the
// options Canopy's sbatch accepts (common/slurm/sbatch_options.h); the usage line is Slurm's
// whole. Pure; thread-safe.
#pragma once

#include <string>

#include "common/slurm/option_values.h"

namespace canopy::ctl::sbatch {

// The text for `request` (kNone and kCpuBindHelp, which is srun's: ""), ending with a newline.
std::string SbatchInfoText(slurm::InfoRequest request);

// --hint=help's text (Slurm's verify_hint), which srun prints too.
std::string HintHelpText();

}  // namespace canopy::ctl::sbatch
