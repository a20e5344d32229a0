// Conversions between the wire types (proto/canopy/v1) and the controller's own types. Pure
// functions; thread-safe.
#pragma once

#include <vector>

#include "canopy/v1/agent.pb.h"
#include "canopy/v1/types.pb.h"
#include "common/rpc/status_convert.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "scheduler/state/node_record.h"
#include "scheduler/topology/topology.h"

namespace canopy::server {

state::NodeRegistration FromProto(const canopy::v1::Register& reg);
std::vector<state::GpuStatus> GpusFromProto(
    const google::protobuf::RepeatedPtrField<canopy::v1::Gpu>& gpus);

// `partitions` are the partitions holding the node; `topology` gives its switch path.
canopy::v1::Node NodeToProto(const state::NodeRecord& node,
                             const std::vector<std::string>& partitions,
                             const topology::Topology& topology);

}  // namespace canopy::server
