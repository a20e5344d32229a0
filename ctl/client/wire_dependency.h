// A --dependency / Dependency= list as parsed by common/slurm (dependency.h), in the wire form
// sbatch's JobSpec and scontrol's UpdateJobRequest carry. canopyd checks that the jobs exist.
// Pure; thread-safe.
#pragma once

#include "canopy/v1/types.pb.h"
#include "common/slurm/dependency.h"
#include "google/protobuf/repeated_ptr_field.h"

namespace canopy::ctl::client {

// Appends one JobDependency per item of `list` to `out` (its `any` is the caller's to copy).
void AppendWireDependencies(const slurm::DependencyList& list,
                            google::protobuf::RepeatedPtrField<canopy::v1::JobDependency>& out);

}  // namespace canopy::ctl::client
