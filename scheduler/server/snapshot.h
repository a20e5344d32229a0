// ClusterSnapshot: an immutable copy of the controller's state, published by the owner thread
// after each batch of commands. Read-only RPCs (list nodes, topology, ...) serve from the latest
// snapshot, so a slow reader never stalls scheduling. Shared as shared_ptr<const>; thread-safe
// to read from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/time/time.h"
#include "common/config/cluster_config.h"
#include "scheduler/core/job.h"
#include "scheduler/core/job_history.h"
#include "scheduler/lifecycle/accounting.h"
#include "scheduler/state/node_record.h"
#include "scheduler/topology/topology.h"

namespace canopy::server {

// Jobs with ids in [k * kJobChunkSize, (k + 1) * kJobChunkSize), ascending. Snapshots share
// chunks: publishing rebuilds only the chunks holding changed jobs, so its cost does not grow
// with the number of jobs the controller remembers.
inline constexpr uint32_t kJobChunkSize = 1024;
struct JobChunk {
  std::vector<std::shared_ptr<const core::Job>> jobs;
};

struct ClusterSnapshot {
  absl::Time taken;
  uint32_t next_job_id = 1;  // the id the next submission gets
  std::shared_ptr<const config::ClusterConfig> config;
  std::shared_ptr<const topology::Topology> topology;
  // Indexed by NodeId; shared between snapshots and copied only when a node or the jobs' use of
  // nodes changed. Their last_heard is stale: heartbeats move only `last_heard` below.
  std::shared_ptr<const std::vector<state::NodeRecord>> nodes;
  // What jobs hold on each node (indexed by NodeId), as of this snapshot: rebuilt whenever a job
  // starts or ends, where the records above are copied only when a node's own facts change.
  std::shared_ptr<const std::vector<state::NodeUse>> node_use;
  // When each node was last heard from (indexed by NodeId; InfinitePast = never), as of this
  // snapshot: 16 bytes a node to copy, where a node record holds strings and GPUs.
  std::shared_ptr<const std::vector<absl::Time>> last_heard;
  // Every job the controller remembers, by chunk (index = id / kJobChunkSize; null = none).
  // Records are shared between snapshots and never change once published.
  std::vector<std::shared_ptr<const JobChunk>> job_chunks;
  // Associations, usage, fair share and the priority weights, as of the last recalculation or
  // change of associations (sshare, sprio, sacctmgr show). Shared between snapshots.
  std::shared_ptr<const lifecycle::Accounting> accounting;
  // Running srun steps of every job, by job id then step id (squeue -s, scontrol show steps).
  // Shared between snapshots; rebuilt only when a step starts or ends.
  std::shared_ptr<const absl::btree_map<uint32_t, std::vector<core::StepRecord>>> steps;

  state::NodeUse UseOf(core::NodeId id) const {
    const auto index = static_cast<size_t>(id.value());
    return node_use != nullptr && id.valid() && index < node_use->size() ? (*node_use)[index]
                                                                         : state::NodeUse{};
  }

  absl::Time LastHeard(core::NodeId id) const {
    const auto index = static_cast<size_t>(id.value());
    return last_heard != nullptr && id.valid() && index < last_heard->size() ? (*last_heard)[index]
                                                                             : absl::InfinitePast();
  }

  // The running steps of job `id`, ascending step id; empty if none.
  const std::vector<core::StepRecord>& StepsOf(uint32_t id) const {
    static const std::vector<core::StepRecord> kNone;
    if (steps == nullptr) {
      return kNone;
    }
    auto it = steps->find(id);
    return it == steps->end() ? kNone : it->second;
  }

  // Calls fn(const core::Job&) for every job, ascending id.
  template <typename Fn>
  void ForEachJob(Fn&& fn) const {
    for (const std::shared_ptr<const JobChunk>& chunk : job_chunks) {
      if (chunk != nullptr) {
        for (const std::shared_ptr<const core::Job>& job : chunk->jobs) {
          fn(*job);
        }
      }
    }
  }
  // The job with this id, or nullptr.
  const core::Job* FindJob(uint32_t id) const {
    const uint32_t k = id / kJobChunkSize;
    if (k >= job_chunks.size() || job_chunks[k] == nullptr) {
      return nullptr;
    }
    for (const std::shared_ptr<const core::Job>& job : job_chunks[k]->jobs) {
      if (job->id.value() == id) {
        return job.get();
      }
    }
    return nullptr;
  }
};

}  // namespace canopy::server
