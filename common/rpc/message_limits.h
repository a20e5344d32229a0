// The size limits of Canopy's gRPC messages, explicit on every channel so that a large request
// gets a clear answer instead of gRPC's 4 MiB default cutting a stream (docs/reliability.md).
//
// What a submission may carry is bounded first by the controller's own checks (the batch script
// by SchedulerParameters max_script_size, arguments and environment by 4 MiB together, text
// fields by Slurm's sizes: scheduler/lifecycle/submit_limits.h); the transport limit sits above
// that, so those checks answer first. Replies (a squeue of a long queue, LaunchJob to an agent) may
// be larger: ListJobs sends slim records (no script, arguments or environment).
#pragma once

#include <cstdint>

namespace canopy::rpc {

// What canopyd accepts in one request: the largest script it may accept plus room for the
// rest of a submission (arguments, environment and fields: under 12 MiB by the checks above).
inline int MaxRequestBytes(int64_t max_script_size) {
  constexpr int64_t kRoomForTheRest = 16 * 1024 * 1024;
  constexpr int64_t kCap = 1024 * 1024 * 1024;
  const int64_t bytes = max_script_size + kRoomForTheRest;
  return static_cast<int>(bytes < kCap ? bytes : kCap);
}

// What clients and agents accept in one reply or streamed message: a ListJobs of some 250,000
// slim jobs, or a LaunchJob carrying the largest request above.
inline constexpr int kMaxReplyBytes = 1024 * 1024 * 1024 - 1;

}  // namespace canopy::rpc
