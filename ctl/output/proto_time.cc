#include "ctl/output/proto_time.h"

#include "common/slurm/time_format.h"

namespace canopy::ctl::output {

absl::Time ToTime(const google::protobuf::Timestamp& t) {
  return absl::FromUnixSeconds(t.seconds()) + absl::Nanoseconds(t.nanos());
}

bool IsSet(const google::protobuf::Timestamp& t) { return t.seconds() != 0 || t.nanos() != 0; }

std::string FormatTimestampOr(const google::protobuf::Timestamp& t, absl::TimeZone tz,
                              absl::string_view unset) {
  return IsSet(t) ? slurm::FormatSlurmTimestamp(ToTime(t), tz) : std::string(unset);
}

}  // namespace canopy::ctl::output
