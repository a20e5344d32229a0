// sacct's wire types (ListAccounting) <-> the accounting history (persistence/history.h). Part
// of proto_convert: the only place wire and core types meet. Pure functions; thread-safe.
#pragma once

#include "canopy/v1/controller.pb.h"
#include "scheduler/persistence/history.h"
#include "scheduler/topology/topology.h"

namespace canopy::server {

// The request's selection; who may see what is the caller's business (controller_service).
persistence::HistoryQuery FromProto(const canopy::v1::ListAccountingRequest& request);

// Appends the job's records to `out`: its earlier runs (when the query asked for them) and then
// its last run, each with its batch step (a batch job that started) and its srun steps.
void AppendAccounting(const persistence::HistoryJob& job, const topology::Topology& topology,
                      canopy::v1::ListAccountingResponse& out);

}  // namespace canopy::server
