// JobTable: the job records one owner keeps (the controller's owner thread, the simulator).
//
// Ordered by JobId so every walk over it is deterministic (STYLE.md §3: no hash-map order in
// decisions; lookups go through a hash index, which is never iterated). Each record lives on
// the heap, so pointers returned stay valid until that job is erased; a lookup is O(1) however
// many jobs there are (the scheduling pass looks up every job it has something to say about).
// Not thread-safe.
#pragma once

#include <memory>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "scheduler/core/ids.h"
#include "scheduler/core/job.h"

namespace canopy::core {

class JobTable {
 public:
  // AlreadyExists if the id is taken; InvalidArgument for an invalid id.
  absl::Status Add(Job job);
  // nullptr if unknown.
  Job* Find(JobId id);
  const Job* Find(JobId id) const;
  // NotFound if unknown.
  absl::Status Erase(JobId id);

  // Jobs in PENDING state, in JobId order. O(jobs).
  std::vector<const Job*> Pending() const;

  size_t size() const { return jobs_.size(); }
  // Every record, ascending id: `for (const auto& [id, job] : table.jobs())` (job is a pointer).
  const absl::btree_map<JobId, std::unique_ptr<Job>>& jobs() const { return jobs_; }

 private:
  absl::btree_map<JobId, std::unique_ptr<Job>> jobs_;
  absl::flat_hash_map<JobId, Job*> index_;  // lookups only
};

}  // namespace canopy::core
