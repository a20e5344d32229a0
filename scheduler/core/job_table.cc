// JobTable: ordered job records.
#include "scheduler/core/job_table.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace canopy::core {

absl::Status JobTable::Add(Job job) {
  if (!job.id.valid()) {
    return absl::InvalidArgumentError("job with an invalid id");
  }
  const JobId id = job.id;
  if (jobs_.contains(id)) {
    return absl::AlreadyExistsError(absl::StrCat("job ", id.value(), " already exists"));
  }
  auto record = std::make_unique<Job>(std::move(job));
  index_[id] = record.get();
  jobs_.emplace(id, std::move(record));
  return absl::OkStatus();
}

Job* JobTable::Find(JobId id) {
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : it->second;
}

const Job* JobTable::Find(JobId id) const {
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : it->second;
}

absl::Status JobTable::Erase(JobId id) {
  index_.erase(id);
  if (jobs_.erase(id) == 0) {
    return absl::NotFoundError(absl::StrCat("job ", id.value(), " not found"));
  }
  // A hash table keeps its largest capacity: after a burst of finished jobs (MinJobAge keeps
  // them) the index would hold memory for the burst forever. Shrink once it is a quarter full;
  // growing back costs one rehash per doubling, so this is amortised O(1) per erase.
  constexpr size_t kMinCapacity = 1024;
  if (index_.capacity() > kMinCapacity && index_.size() * 4 < index_.capacity()) {
    index_.rehash(0);
  }
  return absl::OkStatus();
}

std::vector<const Job*> JobTable::Pending() const {
  std::vector<const Job*> out;
  for (const auto& [id, job] : jobs_) {
    if (job->state == JobState::kPending) {
      out.push_back(job.get());
    }
  }
  return out;
}

}  // namespace canopy::core
