// Pieces the two pass loops share (pass.cc without backfill, backfill.cc with it): the shape key
// of "skip identical", reason mapping and cluster-wide GPU counts. Internal to canopy_plan.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>

#include "scheduler/core/job.h"
#include "scheduler/core/job_spec.h"
#include "scheduler/placement/capacity_view.h"
#include "scheduler/placement/result.h"

namespace canopy::plan::internal {

// What makes two jobs interchangeable for placement within one pass.
using ShapeKey =
    std::tuple<int32_t, int32_t, int32_t, std::string, int32_t, int64_t, bool, std::string>;

// Jobs with -w, -x or --switches are never treated as identical to another.
inline bool HasShape(const core::ResourceRequest& s) {
  return s.required_nodes.empty() && s.excluded_nodes.empty() && s.max_switches == 0;
}

inline ShapeKey KeyOf(const core::ResourceRequest& s) {
  return {s.min_nodes,     s.max_nodes_or_min(), s.gpus_per_node, s.gpu_type,
          s.cpus_per_node, s.mem_per_node_mib,   s.exclusive,     s.partition};
}

inline core::JobReason ToJobReason(placement::PendingReason r) {
  switch (r) {
    case placement::PendingReason::kReqNodeNotAvail:
      return core::JobReason::kReqNodeNotAvail;
    case placement::PendingReason::kBadConstraints:
      return core::JobReason::kBadConstraints;
    default:
      return core::JobReason::kResources;
  }
}

inline int64_t FreeGpusOnOpenNodes(const placement::CapacityView& view) {
  int64_t free = 0;
  for (int root : view.domains().roots()) {
    free += view.stats(root).open_free_gpus;
  }
  return free;
}

inline int64_t TotalGpus(const placement::CapacityView& view) {
  int64_t total = 0;
  for (const placement::NodeCapacity& n : view.nodes()) {
    total += n.total_gpus;
  }
  return total;
}

// GPUs the job asks for at its smallest size.
inline int64_t AskedGpus(const core::ResourceRequest& s) {
  return static_cast<int64_t>(s.min_nodes) * s.gpus_per_node;
}

}  // namespace canopy::plan::internal
