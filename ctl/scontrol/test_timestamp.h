// A protobuf Timestamp for a UTC wall-clock time, as the scontrol tests write their fixtures'
// times.
#pragma once

#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "google/protobuf/timestamp.pb.h"

namespace canopy::ctl::scontrol {

inline google::protobuf::Timestamp At(int y, int mo, int d, int h, int mi, int s) {
  google::protobuf::Timestamp t;
  t.set_seconds(absl::ToUnixSeconds(
      absl::FromCivil(absl::CivilSecond(y, mo, d, h, mi, s), absl::UTCTimeZone())));
  return t;
}

}  // namespace canopy::ctl::scontrol
