#include "common/slurm/array_spec.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace canopy::slurm {
namespace {

absl::Status InvalidArraySpec(absl::string_view spec, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("Invalid job array specification '", spec, "': ", why));
}

}  // namespace

int32_t ArrayThrottle(absl::string_view spec) {
  const size_t pct = spec.find('%');
  int32_t limit = 0;
  if (pct == absl::string_view::npos || !absl::SimpleAtoi(spec.substr(pct + 1), &limit) ||
      limit < 1) {
    return 0;
  }
  return limit;
}

absl::StatusOr<ArraySpec> ParseArraySpec(absl::string_view spec, int max_array_size) {
  ArraySpec out;
  absl::string_view body = spec;
  if (const size_t pct = body.find('%'); pct != absl::string_view::npos) {
    int32_t limit = 0;
    if (!absl::SimpleAtoi(body.substr(pct + 1), &limit) || limit < 1) {
      return InvalidArraySpec(spec, "the limit after '%' must be a positive number");
    }
    out.max_running = limit;
    body = body.substr(0, pct);
  }
  if (body.empty()) {
    return InvalidArraySpec(spec, "no task ids");
  }
  struct Range {
    uint32_t lo, hi, step;
  };
  std::vector<Range> ranges;
  uint32_t highest = 0;
  for (absl::string_view item : absl::StrSplit(body, ',')) {
    uint32_t step = 1;
    absl::string_view range = item;
    if (const size_t colon = item.find(':'); colon != absl::string_view::npos) {
      if (!absl::SimpleAtoi(item.substr(colon + 1), &step) || step == 0) {
        return InvalidArraySpec(spec, absl::StrCat("bad step in '", item, "'"));
      }
      range = item.substr(0, colon);
    }
    uint32_t lo = 0;
    uint32_t hi = 0;
    if (const size_t dash = range.find('-'); dash != absl::string_view::npos) {
      if (!absl::SimpleAtoi(range.substr(0, dash), &lo) ||
          !absl::SimpleAtoi(range.substr(dash + 1), &hi)) {
        return InvalidArraySpec(spec, absl::StrCat("bad range '", item, "'"));
      }
    } else if (!absl::SimpleAtoi(range, &lo)) {
      return InvalidArraySpec(spec, absl::StrCat("bad task id '", item, "'"));
    } else {
      hi = lo;
    }
    if (hi < lo) {
      return InvalidArraySpec(spec, absl::StrCat("range '", item, "' goes down"));
    }
    // Checked before anything is expanded, so work and memory stay bounded by MaxArraySize.
    if (static_cast<int64_t>(hi) >= max_array_size) {
      return InvalidArraySpec(
          spec, absl::StrCat("task id ", hi, " is not below MaxArraySize (", max_array_size, ")"));
    }
    ranges.push_back({lo, hi, step});
    highest = std::max(highest, hi);
  }
  // One bit per id up to the highest named: repeated ranges ("0-4000000,0-4000000,...") cost
  // nothing more, and a step-1 range is one fill.
  std::vector<bool> ids(static_cast<size_t>(highest) + 1, false);
  for (const Range& r : ranges) {
    if (r.step == 1) {
      std::fill(ids.begin() + r.lo, ids.begin() + r.hi + 1, true);
    } else {
      for (uint64_t id = r.lo; id <= r.hi; id += r.step) {
        ids[id] = true;
      }
    }
  }
  for (size_t id = 0; id < ids.size(); ++id) {
    if (ids[id]) {
      out.task_ids.push_back(static_cast<uint32_t>(id));
    }
  }
  return out;
}

}  // namespace canopy::slurm
