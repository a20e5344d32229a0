#include "common/slurm/array_spec.h"

#include <algorithm>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace canopy::slurm {
namespace {

absl::Status Invalid(absl::string_view spec, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("Invalid job array specification '", spec, "': ", why));
}

}  // namespace

absl::StatusOr<ArraySpec> ParseArraySpec(absl::string_view spec, int max_array_size) {
  ArraySpec out;
  absl::string_view body = spec;
  if (const size_t pct = body.find('%'); pct != absl::string_view::npos) {
    int32_t limit = 0;
    if (!absl::SimpleAtoi(body.substr(pct + 1), &limit) || limit < 1) {
      return Invalid(spec, "the limit after '%' must be a positive number");
    }
    out.max_running = limit;
    body = body.substr(0, pct);
  }
  if (body.empty()) {
    return Invalid(spec, "no task ids");
  }
  for (absl::string_view item : absl::StrSplit(body, ',')) {
    uint32_t step = 1;
    absl::string_view range = item;
    if (const size_t colon = item.find(':'); colon != absl::string_view::npos) {
      if (!absl::SimpleAtoi(item.substr(colon + 1), &step) || step == 0) {
        return Invalid(spec, absl::StrCat("bad step in '", item, "'"));
      }
      range = item.substr(0, colon);
    }
    uint32_t lo = 0;
    uint32_t hi = 0;
    if (const size_t dash = range.find('-'); dash != absl::string_view::npos) {
      if (!absl::SimpleAtoi(range.substr(0, dash), &lo) ||
          !absl::SimpleAtoi(range.substr(dash + 1), &hi)) {
        return Invalid(spec, absl::StrCat("bad range '", item, "'"));
      }
    } else if (!absl::SimpleAtoi(range, &lo)) {
      return Invalid(spec, absl::StrCat("bad task id '", item, "'"));
    } else {
      hi = lo;
    }
    if (hi < lo) {
      return Invalid(spec, absl::StrCat("range '", item, "' goes down"));
    }
    // Checked before expanding, so the work and memory stay bounded by MaxArraySize.
    if (static_cast<int64_t>(hi) >= max_array_size) {
      return Invalid(
          spec, absl::StrCat("task id ", hi, " is not below MaxArraySize (", max_array_size, ")"));
    }
    for (uint64_t id = lo; id <= hi; id += step) {
      out.task_ids.push_back(static_cast<uint32_t>(id));
    }
  }
  std::sort(out.task_ids.begin(), out.task_ids.end());
  out.task_ids.erase(std::unique(out.task_ids.begin(), out.task_ids.end()), out.task_ids.end());
  return out;
}

}  // namespace canopy::slurm
