// Trace readers for canopy-sim: Canopy's CSV, the Standard Workload Format (SWF) of the
// Parallel Workloads Archive, and the Philly GPU trace as published with AdaptDL/Pollux.
// Formats are documented in docs/formats/trace.md.
//
// The parsers are pure functions of the text (`origin` names the file in errors); ReadTraceFile
// is the one function here that touches the file system. Every bad row is an InvalidArgument
// "origin:line: what was wrong". Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace canopy::sim {

// One job of a trace, already mapped to Canopy's job shape.
struct TraceJob {
  uint32_t id = 0;
  absl::Duration submit;  // since the trace's start (first submit = 0 for Philly)
  int32_t nodes = 1;
  int32_t gpus_per_node = 1;
  absl::Duration duration;                               // run time on a perfect placement
  absl::Duration time_limit = absl::InfiniteDuration();  // none = the partition's maximum
  std::string user;
  std::string account;
  int32_t line = 0;  // source line, for messages
};

enum class TraceFormat { kAuto, kCanopyCsv, kSwf, kPhilly };

// Header `job_id,submit_s,nodes,gpus_per_node,duration_s,time_limit_s,user,account`.
absl::StatusOr<std::vector<TraceJob>> ParseCanopyCsv(absl::string_view text,
                                                     absl::string_view origin);
// SWF: ';' comment lines, 18 whitespace-separated fields per job. Processors are read as GPUs:
// a job of p processors becomes ceil(p / gpus_per_node) nodes × gpus_per_node GPUs when
// p > gpus_per_node, else 1 node × p GPUs. Jobs with no run time or no processors (cancelled
// before start, status lines) are skipped, as the archive recommends.
absl::StatusOr<std::vector<TraceJob>> ParseSwf(absl::string_view text, absl::string_view origin,
                                               int32_t gpus_per_node);
// Philly (AdaptDL): header `timestamp,duration,num_gpus,gpu_time,cluster`; num_gpus > 8 becomes
// ceil(num_gpus / 8) nodes × 8 GPUs, else 1 node × num_gpus; cluster = account and user. Submit
// times are relative to the earliest timestamp. Job ids are assigned in submit order (then line).
absl::StatusOr<std::vector<TraceJob>> ParsePhillyCsv(absl::string_view text,
                                                     absl::string_view origin);

// The format from the first line: Canopy's header, Philly's header, else SWF if the path ends
// in .swf or the text starts with ';'. InvalidArgument if none matches.
absl::StatusOr<TraceFormat> DetectTraceFormat(absl::string_view path, absl::string_view text);

// Reads and parses a file; `gpus_per_node` is used by SWF only. NotFound if it cannot be read.
// The result is sorted by (submit, id); ids must be unique (InvalidArgument otherwise).
absl::StatusOr<std::vector<TraceJob>> ReadTraceFile(const std::string& path, TraceFormat format,
                                                    int32_t gpus_per_node);

// Sorts by (submit, id) and checks ids are unique. Used by ReadTraceFile and tests.
absl::Status NormalizeTrace(std::vector<TraceJob>& jobs, absl::string_view origin);

}  // namespace canopy::sim
