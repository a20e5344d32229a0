#include "common/rpc/status_convert.h"

#include <string>

namespace canopy::rpc {

// absl::StatusCode and grpc::StatusCode share their numbering (both follow google.rpc.Code).
grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) {
    return grpc::Status::OK;
  }
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) {
    return absl::OkStatus();
  }
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

google::protobuf::Timestamp ToProtoTime(absl::Time t) {
  google::protobuf::Timestamp out;
  if (t == absl::InfinitePast() || t == absl::InfiniteFuture()) {
    return out;
  }
  const int64_t seconds = absl::ToUnixSeconds(t);
  out.set_seconds(seconds);
  out.set_nanos(static_cast<int32_t>((t - absl::FromUnixSeconds(seconds)) / absl::Nanoseconds(1)));
  return out;
}

absl::Time FromProtoTime(const google::protobuf::Timestamp& t) {
  if (t.seconds() == 0 && t.nanos() == 0) {
    return absl::InfinitePast();
  }
  return absl::FromUnixSeconds(t.seconds()) + absl::Nanoseconds(t.nanos());
}

google::protobuf::Duration ToProtoDuration(absl::Duration d) {
  google::protobuf::Duration out;
  if (d == absl::InfiniteDuration()) {
    return out;  // unset = "no limit" in every field that uses it
  }
  const int64_t seconds = absl::IDivDuration(d, absl::Seconds(1), &d);
  out.set_seconds(seconds);
  out.set_nanos(static_cast<int32_t>(d / absl::Nanoseconds(1)));
  return out;
}

absl::Duration FromProtoDuration(const google::protobuf::Duration& d) {
  return absl::Seconds(d.seconds()) + absl::Nanoseconds(d.nanos());
}

}  // namespace canopy::rpc
