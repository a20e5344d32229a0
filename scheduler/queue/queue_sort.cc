// QueueSort implementations.
#include "scheduler/queue/queue_sort.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace canopy::queue {

void QueueSort::Sort(std::vector<const core::Job*>& jobs, absl::Time now) const {
  std::sort(jobs.begin(), jobs.end(),
            [&](const core::Job* a, const core::Job* b) { return Before(*a, *b, now); });
}

bool AgeSort::Before(const core::Job& a, const core::Job& b, absl::Time /*now*/) const {
  if (a.submit_time != b.submit_time) {
    return a.submit_time < b.submit_time;
  }
  return a.id < b.id;
}

absl::StatusOr<std::unique_ptr<QueueSort>> MakeQueueSort(absl::string_view name) {
  if (name == AgeSort::kName || name == "age") {
    return std::make_unique<AgeSort>();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown queue sort '", name, "'; known: queue/age"));
}

}  // namespace canopy::queue
