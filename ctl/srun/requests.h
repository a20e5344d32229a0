// What srun's options turn into: the allocation-only JobSpec srun submits when run outside an
// allocation, and the CreateStep request. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "canopy/v1/controller.pb.h"
#include "ctl/srun/options.h"

namespace canopy::ctl::srun {

// The job srun submits outside an allocation: empty script, resources from the options, and the
// options Slurm records for scontrol and sacct (--comment, --mail-type, --deadline, ...).
// --gpus-per-task gives gpus_per_node when no per-node count is set, and --mem-per-gpu gives
// mem_per_node_mib, as sbatch's spec does.
canopy::v1::JobSpec BuildAllocationSpec(const SrunOptions& options, const std::string& cwd,
                                        const std::string& short_hostname);

// The step for `job_id`; `env` is srun's environment (exported per --export; default ALL).
// io_address/io_token are left for the caller.
canopy::v1::CreateStepRequest BuildStepRequest(const SrunOptions& options, uint32_t job_id,
                                               const std::map<std::string, std::string>& env,
                                               const std::string& cwd);

}  // namespace canopy::ctl::srun
