// Trace readers (trace.h, docs/formats/trace.md).
#include "scheduler/sim/trace.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace canopy::sim {
namespace {

constexpr absl::string_view kCanopyHeader =
    "job_id,submit_s,nodes,gpus_per_node,duration_s,time_limit_s,user,account";
constexpr absl::string_view kPhillyHeader = "timestamp,duration,num_gpus,gpu_time,cluster";

absl::Status RowError(absl::string_view origin, int line, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(origin, ":", line, ": ", what));
}

// Seconds as a non-negative finite number ("12", "12.5").
bool ParseSeconds(absl::string_view s, double& out) {
  return absl::SimpleAtod(absl::StripAsciiWhitespace(s), &out) && std::isfinite(out) && out >= 0;
}

bool ParseCount(absl::string_view s, int32_t& out) {
  return absl::SimpleAtoi(absl::StripAsciiWhitespace(s), &out) && out > 0;
}

// Lines without their trailing '\r'.
std::vector<absl::string_view> Lines(absl::string_view text) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  for (absl::string_view& l : lines) {
    l = absl::StripSuffix(l, "\r");
  }
  return lines;
}

// ceil(gpus / per_node) nodes of per_node GPUs, or one node of `gpus`.
void MapGpus(int32_t gpus, int32_t per_node, TraceJob& job) {
  if (gpus > per_node) {
    job.nodes = (gpus + per_node - 1) / per_node;
    job.gpus_per_node = per_node;
  } else {
    job.nodes = 1;
    job.gpus_per_node = gpus;
  }
}

}  // namespace

absl::StatusOr<std::vector<TraceJob>> ParseCanopyCsv(absl::string_view text,
                                                     absl::string_view origin) {
  std::vector<absl::string_view> lines = Lines(text);
  if (lines.empty() || absl::StripAsciiWhitespace(lines[0]) != kCanopyHeader) {
    return RowError(origin, 1, absl::StrCat("expected the header '", kCanopyHeader, "'"));
  }
  std::vector<TraceJob> jobs;
  for (size_t i = 1; i < lines.size(); ++i) {
    const int line = static_cast<int>(i) + 1;
    if (absl::StripAsciiWhitespace(lines[i]).empty()) {
      continue;
    }
    std::vector<absl::string_view> f = absl::StrSplit(lines[i], ',');
    if (f.size() != 8) {
      return RowError(origin, line, absl::StrCat("expected 8 fields, got ", f.size()));
    }
    TraceJob j;
    j.line = line;
    double submit = 0, duration = 0, limit = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(f[0]), &j.id)) {
      return RowError(origin, line, absl::StrCat("job_id: expected a number, got '", f[0], "'"));
    }
    if (!ParseSeconds(f[1], submit)) {
      return RowError(origin, line,
                      absl::StrCat("submit_s: expected seconds >= 0, got '", f[1], "'"));
    }
    if (!ParseCount(f[2], j.nodes)) {
      return RowError(origin, line,
                      absl::StrCat("nodes: expected a positive integer, got '", f[2], "'"));
    }
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(f[3]), &j.gpus_per_node) ||
        j.gpus_per_node < 0) {
      return RowError(origin, line,
                      absl::StrCat("gpus_per_node: expected an integer >= 0, got '", f[3], "'"));
    }
    if (!ParseSeconds(f[4], duration)) {
      return RowError(origin, line,
                      absl::StrCat("duration_s: expected seconds >= 0, got '", f[4], "'"));
    }
    if (!absl::StripAsciiWhitespace(f[5]).empty()) {
      if (!ParseSeconds(f[5], limit) || limit == 0) {
        return RowError(origin, line,
                        absl::StrCat("time_limit_s: expected seconds > 0 or empty, "
                                     "got '",
                                     f[5], "'"));
      }
      j.time_limit = absl::Seconds(limit);
    }
    j.submit = absl::Seconds(submit);
    j.duration = absl::Seconds(duration);
    j.user = std::string(absl::StripAsciiWhitespace(f[6]));
    j.account = std::string(absl::StripAsciiWhitespace(f[7]));
    jobs.push_back(std::move(j));
  }
  return jobs;
}

absl::StatusOr<std::vector<TraceJob>> ParseSwf(absl::string_view text, absl::string_view origin,
                                               int32_t gpus_per_node) {
  if (gpus_per_node <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(origin, ": SWF needs GPUs per node > 0"));
  }
  std::vector<TraceJob> jobs;
  std::vector<absl::string_view> lines = Lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    const int line = static_cast<int>(i) + 1;
    absl::string_view l = absl::StripAsciiWhitespace(lines[i]);
    if (l.empty() || l[0] == ';') {
      continue;
    }
    std::vector<absl::string_view> f = absl::StrSplit(l, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    if (f.size() < 18) {
      return RowError(origin, line, absl::StrCat("expected 18 SWF fields, got ", f.size()));
    }
    int64_t v[18];
    for (int k = 0; k < 18; ++k) {
      double d = 0;
      if (!absl::SimpleAtod(f[k], &d) || !std::isfinite(d)) {
        return RowError(origin, line,
                        absl::StrCat("field ", k + 1, ": expected a number, got '", f[k], "'"));
      }
      v[k] = static_cast<int64_t>(std::llround(d));
    }
    // 1 job, 2 submit, 4 run time, 5 allocated procs, 8 requested procs, 9 requested time,
    // 12 user, 13 group.
    const int64_t procs = v[7] > 0 ? v[7] : v[4];
    if (v[0] <= 0 || v[1] < 0 || v[3] <= 0 || procs <= 0) {
      continue;  // not a job that ran
    }
    TraceJob j;
    j.line = line;
    j.id = static_cast<uint32_t>(v[0]);
    j.submit = absl::Seconds(v[1]);
    j.duration = absl::Seconds(v[3]);
    if (v[8] > 0) {
      j.time_limit = absl::Seconds(v[8]);
    }
    MapGpus(static_cast<int32_t>(std::min<int64_t>(procs, 1 << 30)), gpus_per_node, j);
    j.user = absl::StrCat("u", v[11]);
    j.account = absl::StrCat("g", v[12]);
    jobs.push_back(std::move(j));
  }
  return jobs;
}

absl::StatusOr<std::vector<TraceJob>> ParsePhillyCsv(absl::string_view text,
                                                     absl::string_view origin) {
  std::vector<absl::string_view> lines = Lines(text);
  if (lines.empty() || absl::StripAsciiWhitespace(lines[0]) != kPhillyHeader) {
    return RowError(origin, 1, absl::StrCat("expected the header '", kPhillyHeader, "'"));
  }
  std::vector<TraceJob> jobs;
  std::vector<absl::Time> submits;
  for (size_t i = 1; i < lines.size(); ++i) {
    const int line = static_cast<int>(i) + 1;
    if (absl::StripAsciiWhitespace(lines[i]).empty()) {
      continue;
    }
    std::vector<absl::string_view> f = absl::StrSplit(lines[i], ',');
    if (f.size() != 5) {
      return RowError(origin, line, absl::StrCat("expected 5 fields, got ", f.size()));
    }
    absl::Time t;
    std::string err;
    if (!absl::ParseTime("%Y-%m-%d %H:%M:%S", std::string(f[0]), absl::UTCTimeZone(), &t, &err)) {
      return RowError(origin, line,
                      absl::StrCat("timestamp: expected YYYY-MM-DD HH:MM:SS, got '", f[0], "'"));
    }
    double duration = 0;
    if (!ParseSeconds(f[1], duration)) {
      return RowError(origin, line,
                      absl::StrCat("duration: expected seconds >= 0, got '", f[1], "'"));
    }
    int32_t gpus = 0;
    if (!ParseCount(f[2], gpus)) {
      return RowError(origin, line,
                      absl::StrCat("num_gpus: expected a positive integer, got '", f[2], "'"));
    }
    TraceJob j;
    j.line = line;
    j.duration = absl::Seconds(duration);
    MapGpus(gpus, 8, j);
    j.account = std::string(absl::StripAsciiWhitespace(f[4]));
    j.user = j.account;
    jobs.push_back(std::move(j));
    submits.push_back(t);
  }
  if (jobs.empty()) {
    return jobs;
  }
  const absl::Time start = *std::min_element(submits.begin(), submits.end());
  for (size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].submit = submits[i] - start;
  }
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const TraceJob& a, const TraceJob& b) { return a.submit < b.submit; });
  for (size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].id = static_cast<uint32_t>(i + 1);
  }
  return jobs;
}

absl::StatusOr<TraceFormat> DetectTraceFormat(absl::string_view path, absl::string_view text) {
  absl::string_view first = text.substr(0, text.find('\n'));
  first = absl::StripAsciiWhitespace(first);
  if (first == kCanopyHeader) {
    return TraceFormat::kCanopyCsv;
  }
  if (first == kPhillyHeader) {
    return TraceFormat::kPhilly;
  }
  if (absl::EndsWith(path, ".swf") || absl::StartsWith(first, ";")) {
    return TraceFormat::kSwf;
  }
  return absl::InvalidArgumentError(
      absl::StrCat(path, ":1: unknown trace format: expected Canopy's CSV header '", kCanopyHeader,
                   "', Philly's '", kPhillyHeader, "', or an SWF file (.swf or ';' comments)"));
}

absl::Status NormalizeTrace(std::vector<TraceJob>& jobs, absl::string_view origin) {
  std::sort(jobs.begin(), jobs.end(), [](const TraceJob& a, const TraceJob& b) {
    return a.submit != b.submit ? a.submit < b.submit : a.id < b.id;
  });
  std::vector<std::pair<uint32_t, int32_t>> ids;
  ids.reserve(jobs.size());
  for (const TraceJob& j : jobs) {
    if (j.id == 0) {
      return RowError(origin, j.line, "job id 0 is not allowed");
    }
    ids.push_back({j.id, j.line});
  }
  std::sort(ids.begin(), ids.end());
  for (size_t i = 1; i < ids.size(); ++i) {
    if (ids[i].first == ids[i - 1].first) {
      return RowError(origin, std::max(ids[i].second, ids[i - 1].second),
                      absl::StrCat("duplicate job id ", ids[i].first));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<TraceJob>> ReadTraceFile(const std::string& path, TraceFormat format,
                                                    int32_t gpus_per_node) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot read trace ", path, ": ", std::strerror(errno)));
  }
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  if (format == TraceFormat::kAuto) {
    absl::StatusOr<TraceFormat> f = DetectTraceFormat(path, text);
    if (!f.ok()) {
      return f.status();
    }
    format = *f;
  }
  absl::StatusOr<std::vector<TraceJob>> jobs;
  switch (format) {
    case TraceFormat::kCanopyCsv:
      jobs = ParseCanopyCsv(text, path);
      break;
    case TraceFormat::kSwf:
      jobs = ParseSwf(text, path, gpus_per_node);
      break;
    default:
      jobs = ParsePhillyCsv(text, path);
      break;
  }
  if (!jobs.ok()) {
    return jobs.status();
  }
  if (absl::Status s = NormalizeTrace(*jobs, path); !s.ok()) {
    return s;
  }
  return jobs;
}

}  // namespace canopy::sim
