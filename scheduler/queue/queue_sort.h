// QueueSort: the extension point that orders pending jobs for a scheduling pass (exactly one
// is active, like Kubernetes' QueueSort or Slurm's priority/* plugin).
//
// Called once per pass with the pending jobs; returns them best-first. A QueueSort reads only its
// arguments (no clock, no globals; `now` comes in), must be a strict weak order that ends in a
// unique tie-break (the job id) so the result never depends on the input order, and keeps no
// per-job state: one const instance may be shared. Named "queue/<name>", made by MakeQueueSort.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
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
  virtual void Sort(std::vector<const core::Job*>& jobs, absl::Time now) const;
  // Keeps only the best `k` of `jobs`, best-first (what Sort and a resize would give).
  // O(n log k).
  virtual void SortTop(std::vector<const core::Job*>& jobs, size_t k, absl::Time now) const;
};

// queue/age: submit time, then job id (Slurm's order among equal priorities; what a FIFO
// cluster without fair share does).
class AgeSort final : public QueueSort {
 public:
  static constexpr absl::string_view kName = "queue/age";
  absl::string_view name() const override { return kName; }
  bool Before(const core::Job& a, const core::Job& b, absl::Time now) const override;
};

// A partition's PriorityTier, by partition name.
using PartitionTiers = absl::flat_hash_map<std::string, uint32_t>;

// queue/priority: Slurm's order (SLURM-NOTES §1b): the partition's PriorityTier (higher first),
// then the job's priority (higher first; job.priority, kept up to date by the lifecycle's
// accounting: multifactor, or submission order under priority/basic), then submit time, then
// job id. Partitions missing from `tiers` count as tier 1 (Slurm's default).
class PrioritySort final : public QueueSort {
 public:
  static constexpr absl::string_view kName = "queue/priority";
  explicit PrioritySort(PartitionTiers tiers);
  absl::string_view name() const override { return kName; }
  bool Before(const core::Job& a, const core::Job& b, absl::Time now) const override;
  // Look each job's tier up once, not once per comparison.
  void Sort(std::vector<const core::Job*>& jobs, absl::Time now) const override;
  void SortTop(std::vector<const core::Job*>& jobs, size_t k, absl::Time now) const override;

 private:
  uint32_t Tier(const core::Job& job) const;
  PartitionTiers tiers_;
  bool uniform_ = true;  // every partition has the same tier: skip the lookups
};

// "queue/age" or "queue/priority" (or "age", "priority"). InvalidArgument naming the known
// sorts otherwise. `tiers` is used by queue/priority.
absl::StatusOr<std::unique_ptr<QueueSort>> MakeQueueSort(absl::string_view name,
                                                         PartitionTiers tiers = {});

}  // namespace canopy::queue
