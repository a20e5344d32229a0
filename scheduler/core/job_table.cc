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
  auto [it, inserted] = jobs_.try_emplace(id, std::move(job));
  if (!inserted) {
    return absl::AlreadyExistsError(absl::StrCat("job ", id.value(), " already exists"));
  }
  return absl::OkStatus();
}

Job* JobTable::Find(JobId id) {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : &it->second;
}

const Job* JobTable::Find(JobId id) const {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : &it->second;
}

absl::Status JobTable::Erase(JobId id) {
  if (jobs_.erase(id) == 0) {
    return absl::NotFoundError(absl::StrCat("job ", id.value(), " not found"));
  }
  return absl::OkStatus();
}

std::vector<const Job*> JobTable::Pending() const {
  std::vector<const Job*> out;
  for (const auto& [id, job] : jobs_) {
    if (job.state == JobState::kPending) {
      out.push_back(&job);
    }
  }
  return out;
}

}  // namespace canopy::core
