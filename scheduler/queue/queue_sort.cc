// QueueSort implementations.
#include "scheduler/queue/queue_sort.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace canopy::queue {

void QueueSort::Sort(std::vector<const core::Job*>& jobs, absl::Time now) const {
  std::sort(jobs.begin(), jobs.end(),
            [&](const core::Job* a, const core::Job* b) { return Before(*a, *b, now); });
}

void QueueSort::SortTop(std::vector<const core::Job*>& jobs, size_t k, absl::Time now) const {
  k = std::min(k, jobs.size());
  std::partial_sort(jobs.begin(), jobs.begin() + static_cast<std::ptrdiff_t>(k), jobs.end(),
                    [&](const core::Job* a, const core::Job* b) { return Before(*a, *b, now); });
  jobs.resize(k);
}

bool AgeSort::Before(const core::Job& a, const core::Job& b, absl::Time /*now*/) const {
  if (a.submit_time != b.submit_time) {
    return a.submit_time < b.submit_time;
  }
  return a.id < b.id;
}

PrioritySort::PrioritySort(PartitionTiers tiers) : tiers_(std::move(tiers)) {
  for (const auto& [name, tier] : tiers_) {
    uniform_ = uniform_ && tier == 1;
  }
}

uint32_t PrioritySort::Tier(const core::Job& job) const {
  if (uniform_) {
    return 1;
  }
  auto it = tiers_.find(job.partition);
  return it != tiers_.end() ? it->second : 1;
}

namespace {

struct PriorityKey {
  uint32_t tier;
  uint32_t priority;
  absl::Time submit;
  core::JobId id;
  bool operator<(const PriorityKey& o) const {
    if (tier != o.tier) return tier > o.tier;
    if (priority != o.priority) return priority > o.priority;
    if (submit != o.submit) return submit < o.submit;
    return id < o.id;
  }
};

}  // namespace

bool PrioritySort::Before(const core::Job& a, const core::Job& b, absl::Time /*now*/) const {
  return PriorityKey{Tier(a), a.priority, a.submit_time, a.id} <
         PriorityKey{Tier(b), b.priority, b.submit_time, b.id};
}

void PrioritySort::Sort(std::vector<const core::Job*>& jobs, absl::Time now) const {
  SortTop(jobs, jobs.size(), now);
}

void PrioritySort::SortTop(std::vector<const core::Job*>& jobs, size_t k,
                           absl::Time /*now*/) const {
  k = std::min(k, jobs.size());
  const auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
  std::vector<std::pair<PriorityKey, const core::Job*>> keyed;
  if (k == jobs.size()) {
    keyed.reserve(jobs.size());
    for (const core::Job* job : jobs) {
      keyed.push_back({PriorityKey{Tier(*job), job->priority, job->submit_time, job->id}, job});
    }
    std::sort(keyed.begin(), keyed.end(), by_key);
  } else {
    // The best k in a max-heap of k (its top the worst of them): one pass over the queue, no
    // copy of it.
    keyed.reserve(k + 1);
    for (const core::Job* job : jobs) {
      const PriorityKey key{Tier(*job), job->priority, job->submit_time, job->id};
      if (keyed.size() == k && !(key < keyed.front().first)) {
        continue;
      }
      keyed.push_back({key, job});
      std::push_heap(keyed.begin(), keyed.end(), by_key);
      if (keyed.size() > k) {
        std::pop_heap(keyed.begin(), keyed.end(), by_key);
        keyed.pop_back();
      }
    }
    std::sort_heap(keyed.begin(), keyed.end(), by_key);
  }
  jobs.resize(k);
  for (size_t i = 0; i < k; ++i) {
    jobs[i] = keyed[i].second;
  }
}

absl::StatusOr<std::unique_ptr<QueueSort>> MakeQueueSort(absl::string_view name,
                                                         PartitionTiers tiers) {
  if (name == AgeSort::kName || name == "age") {
    return std::make_unique<AgeSort>();
  }
  if (name == PrioritySort::kName || name == "priority") {
    return std::make_unique<PrioritySort>(std::move(tiers));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown queue sort '", name, "'; known: queue/age, queue/priority"));
}

}  // namespace canopy::queue
