// sacct --json: the selected records in the shape of Slurm 22.05's data_parser v0.0.38
// (openapi/dbv0.0.38), which Open OnDemand and other tools read: "meta" (plugin, Slurm
// version), "errors", and "jobs", each with its account, comment, allocation_nodes, array,
// association, cluster, derived_exit_code, time, exit_code, group, job_id, name, nodes,
// partition, priority, qos, required, state, steps, tres, user, working_directory (members in
// Slurm's order). Values Canopy has no data for are what Slurm writes when its record lacks
// them (0, null, "" or []). Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "ctl/sacct/fields.h"
#include "ctl/sacct/selection.h"

namespace canopy::ctl::sacct {

// The document, ending in a newline. Times are Unix seconds (0 when unset).
std::string RenderJson(const std::vector<SelectedRecord>& records, const LineContext& context);

}  // namespace canopy::ctl::sacct
