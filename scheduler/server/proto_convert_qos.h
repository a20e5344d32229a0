// Conversions between accounts.proto's QOS messages and the core's QOS records
// (scheduler/limits/qos.h). Pure functions; thread-safe.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "canopy/v1/accounts.pb.h"
#include "scheduler/limits/qos.h"
#include "scheduler/server/qos_edit.h"

namespace canopy::server {

// TRES limits as Slurm strings, times as Durations (unset = UNLIMITED / none).
canopy::v1::Qos ToProto(const limits::QosSpec& spec);

// The edit an UpdateQos request asks for. InvalidArgument for OPERATION_UNSPECIFIED or an
// unknown value.
absl::StatusOr<QosEdit> FromProto(canopy::v1::UpdateQosRequest::Operation operation);
// The request's options as (key, value) pairs, in order.
std::vector<std::pair<std::string, std::string>> QosOptionsFromProto(
    const canopy::v1::UpdateQosRequest& request);

}  // namespace canopy::server
