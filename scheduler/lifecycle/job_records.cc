#include "scheduler/lifecycle/job_records.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/rpc/status_convert.h"
#include "common/slurm/hostlist.h"

namespace canopy::lifecycle {
namespace {

using canopy::v1::JobSpec;

absl::StatusOr<std::vector<core::NodeId>> ResolveNodes(const std::string& hostlist,
                                                       const topology::Topology& topology,
                                                       absl::string_view field) {
  std::vector<core::NodeId> ids;
  if (hostlist.empty()) {
    return ids;
  }
  absl::StatusOr<std::vector<std::string>> names = slurm::ExpandHostlist(hostlist);
  if (!names.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": '", hostlist, "' is not a hostlist: ", names.status().message()));
  }
  for (const std::string& name : *names) {
    const core::NodeId id = topology.FindNode(name);
    if (!id.valid()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Batch job submission failed: Invalid node name specified (", field,
                       " names ", name, ", which is not a node of this cluster)"));
    }
    ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

const config::PartitionConfig* FindPartition(const config::ClusterConfig& config,
                                             const std::string& name) {
  if (name.empty()) {
    for (const config::PartitionConfig& p : config.partitions) {
      if (p.is_default) {
        return &p;
      }
    }
    return config.partitions.empty() ? nullptr : &config.partitions.front();
  }
  for (const config::PartitionConfig& p : config.partitions) {
    if (p.name == name) {
      return &p;
    }
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<ResolvedSpec> ResolveSpec(const JobSpec& spec, const config::ClusterConfig& config,
                                         const topology::Topology& topology) {
  ResolvedSpec out;
  core::JobSpec& c = out.core;
  if (spec.min_nodes() < 0 || spec.max_nodes() < 0 || spec.ntasks() < 0 ||
      spec.ntasks_per_node() < 0 || spec.cpus_per_task() < 0 || spec.gpus_per_node() < 0 ||
      spec.mem_per_node_mib() < 0 || spec.max_switches() < 0) {
    return absl::InvalidArgumentError(
        "spec: node, task, CPU, GPU, memory and switch counts must not be negative");
  }
  out.partition = FindPartition(config, spec.partition());
  if (out.partition == nullptr) {
    // sbatch prints each line after "sbatch: error: "; these are Slurm's own two lines.
    return absl::InvalidArgumentError(
        absl::StrCat("invalid partition specified: ",
                     spec.partition().empty() ? "(no default partition)" : spec.partition(),
                     "\nBatch job submission failed: Invalid partition name specified"));
  }
  const config::PartitionConfig& part = *out.partition;
  c.name = spec.name();
  c.min_nodes = std::max(1, spec.min_nodes());
  c.max_nodes = spec.max_nodes() > 0 ? std::max(spec.max_nodes(), c.min_nodes) : 0;
  if (spec.ntasks() > 0 && spec.min_nodes() == 0 && spec.ntasks_per_node() > 0) {
    c.min_nodes = (spec.ntasks() + spec.ntasks_per_node() - 1) / spec.ntasks_per_node();
  }
  c.gpus_per_node = spec.gpus_per_node();
  c.gpu_type = spec.gpu_type();
  const int32_t tasks_per_node =
      spec.ntasks_per_node() > 0
          ? spec.ntasks_per_node()
          : (spec.ntasks() > 0 ? (spec.ntasks() + c.min_nodes - 1) / c.min_nodes : 1);
  c.cpus_per_node = std::max(1, spec.cpus_per_task()) * tasks_per_node;
  c.mem_per_node_mib = spec.mem_per_node_mib();
  c.exclusive = spec.exclusive();
  c.partition = part.name;
  c.account = spec.account();
  c.max_switches = spec.max_switches();
  if (spec.has_switches_wait()) {
    c.max_switch_wait = rpc::FromProtoDuration(spec.switches_wait());
  }
  c.requeue = spec.requeue();

  absl::StatusOr<std::vector<core::NodeId>> required =
      ResolveNodes(spec.required_nodes(), topology, "--nodelist");
  if (!required.ok()) {
    return required.status();
  }
  absl::StatusOr<std::vector<core::NodeId>> excluded =
      ResolveNodes(spec.excluded_nodes(), topology, "--exclude");
  if (!excluded.ok()) {
    return excluded.status();
  }
  c.required_nodes = *std::move(required);
  c.excluded_nodes = *std::move(excluded);

  // Refuse what no node of the partition could ever hold, as sbatch does.
  bool any_fits = false;
  for (const std::string& name : part.nodes) {
    const core::NodeId id = topology.FindNode(name);
    if (!id.valid()) {
      continue;
    }
    const config::NodeConfig& n = config.nodes[id.value()];
    int gpus = 0;
    for (const config::GpuConfig& g : n.gpus) {
      if (c.gpu_type.empty() || g.type == c.gpu_type) {
        gpus += g.count;
      }
    }
    if (gpus >= c.gpus_per_node && n.cpus >= c.cpus_per_node &&
        n.real_memory_mib >= c.mem_per_node_mib) {
      any_fits = true;
      break;
    }
  }
  if (!any_fits) {
    // Slurm's words only (sbatch prints them as they are); what was asked is in the request.
    return absl::InvalidArgumentError(
        "Batch job submission failed: Requested node configuration is not available");
  }

  // The time limit: the job's own, else the partition's DefaultTime, else its MaxTime.
  const absl::Duration asked =
      spec.has_time_limit() ? rpc::FromProtoDuration(spec.time_limit()) : absl::InfiniteDuration();
  if (asked <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("time_limit: must be positive (unset = partition default)");
  }
  out.time_limit = spec.has_time_limit()                           ? asked
                   : part.default_time != absl::InfiniteDuration() ? part.default_time
                                                                   : part.max_time;
  c.time_limit = out.time_limit;
  if (!part.up) {
    out.blocked = core::JobReason::kPartitionDown;
  }
  if (out.time_limit > part.max_time) {
    out.blocked = core::JobReason::kPartitionTimeLimit;
  }
  const int64_t limit_nodes = part.max_nodes >= 0
                                  ? std::min<int64_t>(part.max_nodes, part.nodes.size())
                                  : static_cast<int64_t>(part.nodes.size());
  if (c.min_nodes > limit_nodes) {
    out.blocked = core::JobReason::kPartitionNodeLimit;
  }
  return out;
}

canopy::v1::JobState ToProtoState(core::JobState state) {
  using S = core::JobState;
  switch (state) {
    case S::kPending:
      return canopy::v1::JOB_STATE_PENDING;
    case S::kConfiguring:
      return canopy::v1::JOB_STATE_CONFIGURING;
    case S::kRunning:
      return canopy::v1::JOB_STATE_RUNNING;
    case S::kCompleting:
      return canopy::v1::JOB_STATE_COMPLETING;
    case S::kCompleted:
      return canopy::v1::JOB_STATE_COMPLETED;
    case S::kFailed:
      return canopy::v1::JOB_STATE_FAILED;
    case S::kCancelled:
      return canopy::v1::JOB_STATE_CANCELLED;
    case S::kTimeout:
      return canopy::v1::JOB_STATE_TIMEOUT;
    case S::kNodeFail:
      return canopy::v1::JOB_STATE_NODE_FAIL;
    case S::kOutOfMemory:
      return canopy::v1::JOB_STATE_OUT_OF_MEMORY;
    case S::kRequeued:
      return canopy::v1::JOB_STATE_REQUEUED;
    case S::kPreempted:
      return canopy::v1::JOB_STATE_PREEMPTED;
  }
  return canopy::v1::JOB_STATE_UNSPECIFIED;
}

core::JobState FromProtoState(canopy::v1::JobState state) {
  for (int i = 0; i < core::kJobStateCount; ++i) {
    if (ToProtoState(static_cast<core::JobState>(i)) == state) {
      return static_cast<core::JobState>(i);
    }
  }
  return core::JobState::kPending;
}

core::JobReason ReasonFromName(absl::string_view name) {
  for (int i = 0; i <= static_cast<int>(core::JobReason::kNodeDown); ++i) {
    const auto r = static_cast<core::JobReason>(i);
    if (core::JobReasonName(r) == name) {
      return r;
    }
  }
  return core::JobReason::kNone;
}

void SyncRecord(const core::Job& job, const topology::Topology& topology,
                const std::vector<std::vector<int>>& gpu_indexes, canopy::v1::Job& record) {
  record.set_job_id(job.id.value());
  record.set_state(ToProtoState(job.state));
  record.set_reason(std::string(core::JobReasonName(job.reason)));
  *record.mutable_submit_time() = rpc::ToProtoTime(job.submit_time);
  *record.mutable_start_time() = rpc::ToProtoTime(job.start_time);
  *record.mutable_end_time() = rpc::ToProtoTime(job.end_time);
  record.set_exit_code(job.exit_code);
  record.set_exit_signal(job.exit_signal);
  record.set_restart_count(job.restart_count);
  // A finished job keeps showing where it ran (squeue/sacct); a pending one shows nothing.
  if (job.allocation.empty() && !core::IsTerminal(job.state)) {
    record.clear_nodes();
    record.clear_gpus_per_node_allocated();
    record.clear_cpus_allocated();
    record.clear_mem_allocated_mib();
    record.clear_node_gpu_indexes();
    record.clear_leaf_switches();
  }
  if (job.allocation.empty()) {
    return;
  }
  record.clear_nodes();
  record.clear_gpus_per_node_allocated();
  record.clear_cpus_allocated();
  record.clear_mem_allocated_mib();
  record.clear_node_gpu_indexes();
  record.clear_leaf_switches();
  std::vector<core::SwitchId> leaves;
  for (size_t i = 0; i < job.allocation.nodes.size(); ++i) {
    const core::NodeShare& share = job.allocation.nodes[i];
    record.add_nodes(topology.node_name(share.node));
    record.add_gpus_per_node_allocated(share.gpus);
    record.add_cpus_allocated(share.cpus);
    record.add_mem_allocated_mib(share.mem_mib);
    record.add_node_gpu_indexes(i < gpu_indexes.size() ? absl::StrJoin(gpu_indexes[i], ",") : "");
    if (const core::SwitchId leaf = topology.leaf_of(share.node); leaf.valid()) {
      leaves.push_back(leaf);
    }
  }
  std::sort(leaves.begin(), leaves.end());
  leaves.erase(std::unique(leaves.begin(), leaves.end()), leaves.end());
  for (core::SwitchId leaf : leaves) {
    record.add_leaf_switches(topology.switch_name(leaf));
  }
}

absl::StatusOr<core::Allocation> AllocationFromRecord(const canopy::v1::Job& record,
                                                      const topology::Topology& topology) {
  core::Allocation a;
  a.exclusive = record.spec().exclusive();
  const int n = record.nodes_size();
  if (record.gpus_per_node_allocated_size() != n || record.cpus_allocated_size() != n ||
      record.mem_allocated_mib_size() != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("job ", record.job_id(), ": per-node allocation lists disagree"));
  }
  for (int i = 0; i < n; ++i) {
    const core::NodeId id = topology.FindNode(record.nodes(i));
    if (!id.valid()) {
      return absl::InvalidArgumentError(absl::StrCat("job ", record.job_id(), ": node ",
                                                     record.nodes(i), " is no longer configured"));
    }
    a.nodes.push_back(core::NodeShare{id, record.gpus_per_node_allocated(i),
                                      record.cpus_allocated(i), record.mem_allocated_mib(i)});
  }
  return a;
}

std::vector<std::vector<int>> GpuIndexesFromRecord(const canopy::v1::Job& record) {
  std::vector<std::vector<int>> out;
  for (const std::string& list : record.node_gpu_indexes()) {
    std::vector<int> indexes;
    for (absl::string_view item : absl::StrSplit(list, ',', absl::SkipEmpty())) {
      int v = 0;
      if (absl::SimpleAtoi(item, &v)) {
        indexes.push_back(v);
      }
    }
    out.push_back(std::move(indexes));
  }
  return out;
}

}  // namespace canopy::lifecycle
