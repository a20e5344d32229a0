// squeue --json: every job (Slurm 22.05 applies none of squeue's filters to --json, and
// neither does this), in the shape of Slurm 22.05's data_parser v0.0.38 (openapi/v0.0.38):
// "meta" (plugin, Slurm version), "errors", and "jobs", each with the members slurmrestd's
// v0.0.38 job has, in its order. Pending tasks of an array are one job, as squeue keeps them
// (array_task_string "2-9%2"). Values Canopy has no data for are what Slurm writes when its
// record leaves them unset (0, null, "" or []). Pure; thread-safe.
#pragma once

#include <string>

#include "canopy/v1/controller.pb.h"
#include "ctl/squeue/fields.h"

namespace canopy::ctl::squeue {

// The document, ending in a newline. Times are Unix seconds (0 when unset).
std::string RenderJson(const canopy::v1::ListJobsResponse& jobs, const FieldContext& context);

}  // namespace canopy::ctl::squeue
