// What canopyctl's own commands print, from canopyd's answers: Canopy's formats (TextTable
// columns, the switch tree), not Slurm's. Pure: text out of proto messages, no RPC and no I/O,
// so each is compared with golden text in render_test.cc. Thread-safe.
#pragma once

#include <string>

#include "absl/time/time.h"
#include "canopy/v1/controller.pb.h"

namespace canopy::ctl::canopyctl {

// `canopyctl nodes`: NODE STATE CPUS MEMORY GPUS(used/total) LEAF REASON.
std::string RenderNodesTable(const canopy::v1::ListNodesResponse& nodes);

// `canopyctl topology`: the switch tree with per-switch node and GPU counts and jobs, each
// leaf's nodes grouped by state, then blocks and nodes under no switch.
std::string RenderTopologyTree(const canopy::v1::GetTopologyResponse& topology,
                               const canopy::v1::ListNodesResponse& nodes);

// `canopyctl drain|down|resume`: "VERB: NODES".
std::string RenderNodeUpdate(const std::string& verb,
                             const canopy::v1::UpdateNodeResponse& response);

// `canopyctl ping`, for the controller reached at `target`.
std::string RenderPing(const canopy::v1::PingResponse& ping, const std::string& target);

// `canopyctl jobs`: JOBID NAME USER STATE NODES LEAVES TIME NODELIST(REASON), times as of the
// response's server_time.
std::string RenderJobsTable(const canopy::v1::ListJobsResponse& jobs);

// `canopyctl job ID`: state, exit code, nodes, leaves, placement and times; `tz` for times.
std::string RenderJobDetails(const canopy::v1::Job& job, absl::Time now, absl::TimeZone tz);

// `canopyctl whoami`.
std::string RenderWhoAmI(const canopy::v1::WhoAmIResponse& me);

}  // namespace canopy::ctl::canopyctl
