// JobTable: the job records one owner keeps (the controller's owner thread, the simulator).
//
// Ordered by JobId so every walk over it is deterministic (STYLE.md §3: no hash-map order in
// decisions). Pointers returned stay valid until that job is erased (node-based map).
// Not thread-safe.
#pragma once

#include <vector>

#include "absl/container/btree_map.h"
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
  const absl::btree_map<JobId, Job>& jobs() const { return jobs_; }

 private:
  absl::btree_map<JobId, Job> jobs_;
};

}  // namespace canopy::core
