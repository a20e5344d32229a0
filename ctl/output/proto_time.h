// Wire timestamps for the renderers: canopyd leaves a Timestamp at zero when a time is not set
// (a job not started yet). Pure; thread-safe.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "google/protobuf/timestamp.pb.h"

namespace canopy::ctl::output {

// The time `t` holds; an unset (zero) one is the Unix epoch, so differences stay finite
// (common/rpc's FromProtoTime maps it to InfinitePast instead).
absl::Time ToTime(const google::protobuf::Timestamp& t);

bool IsSet(const google::protobuf::Timestamp& t);

// Slurm's timestamp ("2026-12-02T09:43:42") in `tz`, or `unset` for an unset one.
std::string FormatTimestampOr(const google::protobuf::Timestamp& t, absl::TimeZone tz,
                              absl::string_view unset);

}  // namespace canopy::ctl::output
