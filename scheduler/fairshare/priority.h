// Multifactor priority (PriorityType=priority/multifactor), as Slurm computes it
// (docs/design/fairshare.md): each factor is a number in [0, 1], multiplied by its
// PriorityWeight*; the job's priority is the sum minus its nice, at least 1 (0 means held),
// truncated to an integer as sprio prints each weighted factor.
//
//   age        min(1, time eligible / PriorityMaxAge)
//   fairshare  the job's user association's fair-share factor (fair_share.h)
//   job size   (nodes / cluster nodes + CPUs / cluster CPUs) / 2; 1 - that with PriorityFavorSmall
//   partition  the partition's PriorityJobFactor / the largest PriorityJobFactor
//   qos        the QOS's priority / the largest QOS priority (0 until QOS exist)
// Pure; thread-safe.
#pragma once

#include <cstdint>

#include "absl/time/time.h"
#include "scheduler/core/job.h"

namespace canopy::fairshare {

struct PriorityWeights {
  uint32_t age = 0;
  uint32_t fairshare = 0;
  uint32_t job_size = 0;
  uint32_t partition = 0;
  uint32_t qos = 0;
  absl::Duration max_age = absl::Hours(24 * 7);  // PriorityMaxAge
  bool favor_small = false;                      // PriorityFavorSmall
};

// What the job's factors are measured against.
struct PriorityContext {
  absl::Time now;
  double fairshare = 0;  // of the job's association
  int64_t cluster_nodes = 1;
  int64_t cluster_cpus = 1;
  double partition = 0;  // the partition's normalised PriorityJobFactor
  double qos = 0;        // the QOS's normalised priority
};

struct PriorityFactors {
  double age = 0;
  double fairshare = 0;
  double job_size = 0;
  double partition = 0;
  double qos = 0;
};

// The weighted factors, as sprio prints them, and the total.
struct Priority {
  uint32_t age = 0;
  uint32_t fairshare = 0;
  uint32_t job_size = 0;
  uint32_t partition = 0;
  uint32_t qos = 0;
  int64_t nice = 0;
  uint32_t total = 1;
};

PriorityFactors ComputeFactors(const core::Job& job, const PriorityContext& context,
                               const PriorityWeights& weights);
Priority Weigh(const PriorityFactors& factors, const PriorityWeights& weights, int64_t nice);

}  // namespace canopy::fairshare
