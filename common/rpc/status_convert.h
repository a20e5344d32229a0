// The one place where absl::Status and grpc::Status meet (STYLE.md §6), plus the conversions
// between absl time types and protobuf's Timestamp/Duration. Used by canopyd, the agent and
// canopyctl at their gRPC edges; the scheduler core never sees gRPC types. Thread-safe.
#pragma once

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "google/protobuf/duration.pb.h"
#include "google/protobuf/timestamp.pb.h"
#include "grpcpp/support/status.h"

namespace canopy::rpc {

grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

google::protobuf::Timestamp ToProtoTime(absl::Time t);
// An unset (all-zero) Timestamp maps to absl::InfinitePast().
absl::Time FromProtoTime(const google::protobuf::Timestamp& t);
google::protobuf::Duration ToProtoDuration(absl::Duration d);
absl::Duration FromProtoDuration(const google::protobuf::Duration& d);

}  // namespace canopy::rpc
