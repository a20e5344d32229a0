// The SLURM_* variables sbatch itself puts in a job's environment, as Slurm 22.05's sbatch does
// (its "OUTPUT ENVIRONMENT VARIABLES" that come from the submission rather than the node): the
// options' own (SLURM_CPUS_PER_TASK, SLURM_MEM_PER_NODE, SLURM_GPUS_PER_NODE, ...), the
// dependency as written, an array's shape, and sbatch's scheduling priority. Being SLURM_*
// variables, they reach the job whatever --export says. Pure; thread-safe.
#pragma once

#include "canopy/v1/types.pb.h"
#include "common/slurm/sbatch_options.h"

namespace canopy::ctl::sbatch {

// Adds to spec.environment, over what it has (BuildJobSpec has already left an enclosing job's
// own variables out of sbatch's environment: slurm::IsJobOwnVariable):
//   - slurm::SubmitOptionVariables of the options given;
//   - SLURM_JOB_DEPENDENCY: --dependency as written;
//   - SLURM_ARRAY_TASK_COUNT, _MIN, _MAX and _STEP for --array (the step is the first range's
//     ":STEP", else 1, as sbatch reads it);
//   - SLURM_PRIO_PROCESS: `prio_process`, sbatch's own nice value.
void AddSbatchVariables(const slurm::SbatchOptions& o, int prio_process, canopy::v1::JobSpec& spec);

}  // namespace canopy::ctl::sbatch
