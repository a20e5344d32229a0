// QueueSort: the extension point that orders pending jobs for a scheduling pass (exactly one
// is active, like Kubernetes' QueueSort or Slurm's priority/* plugin).
//
// Called once per pass with the pending jobs; returns them best-first. A QueueSort reads only its
// arguments (no clock, no globals; `now` comes in), must be a strict weak order that ends in a
// unique tie-break (the job id) so the result never depends on the input order, and keeps no
// per-job state: one const instance may be shared. Named "queue/<name>", made by MakeQueueSort.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "scheduler/core/job.h"

namespace canopy::queue {

class QueueSort {
 public:
  virtual ~QueueSort() = default;
  virtual absl::string_view name() const = 0;
  // True if `a` should be tried before `b`.
  virtual bool Before(const core::Job& a, const core::Job& b, absl::Time now) const = 0;

  // Sorts `jobs` best-first. O(n log n).
  void Sort(std::vector<const core::Job*>& jobs, absl::Time now) const;
};

// queue/age: submit time, then job id (Slurm's order among equal priorities; what a FIFO
// cluster without fair share does). Fair share comes later as queue/multifactor.
class AgeSort final : public QueueSort {
 public:
  static constexpr absl::string_view kName = "queue/age";
  absl::string_view name() const override { return kName; }
  bool Before(const core::Job& a, const core::Job& b, absl::Time now) const override;
};

// "queue/age" (or "age"). InvalidArgument naming the known sorts otherwise.
absl::StatusOr<std::unique_ptr<QueueSort>> MakeQueueSort(absl::string_view name);

}  // namespace canopy::queue
