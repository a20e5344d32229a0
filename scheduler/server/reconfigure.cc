#include "scheduler/server/reconfigure.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/slurm/hostlist.h"
#include "common/slurm/limit_values.h"
#include "common/slurm/scheduling_values.h"
#include "common/slurm/time_format.h"
#include "scheduler/core/clock.h"
#include "scheduler/core/job.h"
#include "scheduler/lifecycle/job_lifecycle.h"
#include "scheduler/persistence/store.h"
#include "scheduler/server/config_view.h"
#include "scheduler/topology/load_topology.h"

namespace canopy::server {
namespace {

// Job ids listed for an operator: the first few, then how many more.
std::string JobList(const std::vector<uint32_t>& ids) {
  constexpr size_t kShown = 8;
  std::vector<uint32_t> shown(ids.begin(), ids.begin() + std::min(ids.size(), kShown));
  std::string text = absl::StrJoin(shown, ",");
  if (ids.size() > kShown) {
    absl::StrAppend(&text, " and ", ids.size() - kShown, " more");
  }
  return text;
}

std::string MaxNodesText(int64_t n) { return n < 0 ? "UNLIMITED" : absl::StrCat(n); }

// One partition's settings, by scontrol's key, for comparing two configurations.
std::map<std::string, std::string> PartitionSettings(const config::PartitionConfig& p) {
  return {
      {"Nodes", slurm::CompressHostlist(p.nodes)},
      {"Default", p.is_default ? "YES" : "NO"},
      {"State", p.up ? "UP" : "DOWN"},
      {"MaxTime", slurm::FormatSlurmDuration(p.max_time)},
      {"DefaultTime", p.default_time == absl::InfiniteDuration()
                          ? std::string("NONE")
                          : slurm::FormatSlurmDuration(p.default_time)},
      {"MaxNodes", MaxNodesText(p.max_nodes)},
      {"PriorityJobFactor", absl::StrCat(p.policy.priority_job_factor)},
      {"PriorityTier", absl::StrCat(p.policy.priority_tier)},
      {"AllowAccounts", p.policy.allow_accounts.empty()
                            ? std::string("ALL")
                            : absl::StrJoin(p.policy.allow_accounts, ",")},
      {"PreemptMode", std::string(slurm::PreemptModeName(p.policy.preempt_mode))},
      {"GraceTime", absl::StrCat(absl::ToInt64Seconds(p.policy.grace_time))},
      {"TRESBillingWeights", slurm::FormatTresBillingWeights(p.policy.billing)},
  };
}

// A node's hardware and scheduling facts, for comparing two configurations.
std::string NodeSummary(const config::NodeConfig& n) {
  std::string gpus;
  for (const config::GpuConfig& g : n.gpus) {
    absl::StrAppend(&gpus, gpus.empty() ? "" : ",", "gpu:", g.type, g.type.empty() ? "" : ":",
                    g.count);
  }
  return absl::StrCat("CPUs=", n.cpus, " RealMemory=", n.real_memory_mib, " Gres=", gpus,
                      " Weight=", n.weight, " Features=", absl::StrJoin(n.features, ","),
                      " Sockets=", n.sockets, " CoresPerSocket=", n.cores_per_socket,
                      " ThreadsPerCore=", n.threads_per_core, " Boards=", n.boards);
}

void DescribeNodes(const config::ClusterConfig& before, const config::ClusterConfig& after,
                   std::vector<std::string>& changes) {
  std::map<std::string, const config::NodeConfig*> old_nodes;
  for (const config::NodeConfig& n : before.nodes) {
    old_nodes[n.name] = &n;
  }
  std::vector<std::string> added, changed;
  std::set<std::string> kept;
  for (const config::NodeConfig& n : after.nodes) {
    auto it = old_nodes.find(n.name);
    if (it == old_nodes.end()) {
      added.push_back(n.name);
      continue;
    }
    kept.insert(n.name);
    if (NodeSummary(*it->second) != NodeSummary(n)) {
      changed.push_back(n.name);
    }
  }
  std::vector<std::string> removed;
  for (const config::NodeConfig& n : before.nodes) {
    if (!kept.contains(n.name)) {
      removed.push_back(n.name);
    }
  }
  if (!added.empty()) {
    changes.push_back(absl::StrCat("nodes added: ", slurm::CompressHostlist(added)));
  }
  if (!removed.empty()) {
    changes.push_back(absl::StrCat("nodes removed: ", slurm::CompressHostlist(removed)));
  }
  if (!changed.empty()) {
    changes.push_back(absl::StrCat("nodes changed: ", slurm::CompressHostlist(changed)));
  }
}

void DescribePartitions(const config::ClusterConfig& before, const config::ClusterConfig& after,
                        std::vector<std::string>& changes) {
  std::map<std::string, const config::PartitionConfig*> old_parts;
  for (const config::PartitionConfig& p : before.partitions) {
    old_parts[p.name] = &p;
  }
  std::set<std::string> kept;
  for (const config::PartitionConfig& p : after.partitions) {
    auto it = old_parts.find(p.name);
    if (it == old_parts.end()) {
      changes.push_back(absl::StrCat("partition added: ", p.name));
      continue;
    }
    kept.insert(p.name);
    const std::map<std::string, std::string> was = PartitionSettings(*it->second);
    for (const auto& [key, value] : PartitionSettings(p)) {
      if (const std::string& old_value = was.at(key); old_value != value) {
        changes.push_back(
            absl::StrCat("partition ", p.name, ": ", key, " ", old_value, " -> ", value));
      }
    }
  }
  for (const config::PartitionConfig& p : before.partitions) {
    if (!kept.contains(p.name)) {
      changes.push_back(absl::StrCat("partition removed: ", p.name));
    }
  }
}

void DescribeSettings(const config::ClusterConfig& before, const config::ClusterConfig& after,
                      std::vector<std::string>& changes) {
  // The facts (boot time, next job id) are the same on both sides: only settings differ.
  const ConfigFacts facts;
  std::map<std::string, std::string> was;
  for (auto& [key, value] : ConfigEntries(before, facts)) {
    was[key] = std::move(value);
  }
  for (const auto& [key, value] : ConfigEntries(after, facts)) {
    auto it = was.find(key);
    const std::string old_value = it == was.end() ? "(not set)" : it->second;
    if (old_value != value) {
      changes.push_back(absl::StrCat(key, ": ", old_value, " -> ", value));
    }
  }
  if (before.topology.text != after.topology.text) {
    changes.push_back(absl::StrCat("topology changed (", after.topology.origin, ")"));
  }
}

// Every job the controller holds, restored into a scratch lifecycle built on `next` exactly as
// the restarted canopyd will restore it: what that restore would cancel ("job 12 no longer fits
// the configuration and is cancelled: ..."), one line per job.
absl::StatusOr<std::vector<std::string>> JobsTheRestartWouldCancel(
    std::shared_ptr<const config::ClusterConfig> next,
    std::shared_ptr<const topology::Topology> topology, const ClusterSnapshot& snapshot) {
  const core::SystemClock clock;
  absl::StatusOr<std::unique_ptr<lifecycle::JobLifecycle>> scratch =
      lifecycle::JobLifecycle::Create(next, topology, clock);
  if (!scratch.ok()) {
    return scratch.status();
  }
  lifecycle::Effects effects;
  if (absl::Status s = (*scratch)->RestoreAccounting({}, effects); !s.ok()) {
    return s;
  }
  // As the store hands them over: nodes by name, mapped to the new configuration's ids.
  persistence::StoredJobs stored;
  stored.next_job_id = snapshot.next_job_id;
  snapshot.ForEachJob([&](const core::Job& published) {
    core::Job job = published;
    job.expected_nodes.clear();  // derived by the next pass, in the old ids
    for (core::NodeShare& share : job.allocation.nodes) {
      const std::string& name = snapshot.topology->node_name(share.node);
      share.node = topology->FindNode(name);
      if (!share.node.valid()) {
        stored.problems.push_back(
            {job.id, absl::StrCat("node ", name, " is no longer configured")});
        job.allocation = {};
        break;
      }
    }
    stored.jobs.push_back(std::move(job));
  });
  effects = lifecycle::Effects();
  if (absl::Status s = (*scratch)->Restore(std::move(stored), effects); !s.ok()) {
    return s;
  }
  std::vector<std::string> lost;
  for (const std::string& warning : effects.warnings) {
    if (absl::StrContains(warning, "no longer fits the configuration")) {
      lost.push_back(warning);
    }
  }
  return lost;
}

}  // namespace

std::vector<std::string> DescribeConfigChanges(const config::ClusterConfig& before,
                                               const config::ClusterConfig& after) {
  std::vector<std::string> changes;
  DescribeNodes(before, after, changes);
  DescribePartitions(before, after, changes);
  DescribeSettings(before, after, changes);
  return changes;
}

absl::StatusOr<ReconfigurePlan> PrepareReconfigure(const config::ClusterConfig& running,
                                                   const std::string& state_dir_override,
                                                   const ClusterSnapshot& snapshot) {
  absl::StatusOr<config::ClusterConfig> loaded = config::LoadClusterConfig(running.path);
  if (!loaded.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the configuration was not changed: ", loaded.status().message()));
  }
  if (!state_dir_override.empty()) {
    loaded->state_dir = state_dir_override;
    loaded->unix_socket = absl::StrCat(state_dir_override, "/canopyd.sock");
  }
  absl::StatusOr<topology::Topology> topo = topology::LoadTopology(*loaded);
  if (!topo.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the configuration was not changed: ", topo.status().message()));
  }
  if (loaded->state_dir != running.state_dir) {
    return absl::FailedPreconditionError(
        absl::StrCat("the configuration was not changed: the state directory moved from ",
                     running.state_dir, " to ", loaded->state_dir,
                     "; stop canopyd, move the directory, and start it again to change it"));
  }

  std::set<std::string> new_nodes, new_partitions;
  for (const config::NodeConfig& n : loaded->nodes) {
    new_nodes.insert(n.name);
  }
  for (const config::PartitionConfig& p : loaded->partitions) {
    new_partitions.insert(p.name);
  }
  // A job on a node that is gone could not be restored; one in a partition that is gone could
  // not be scheduled. Both are the operator's to resolve first, not ours to drop.
  std::map<std::string, std::vector<uint32_t>> jobs_on_removed_nodes, jobs_in_removed_partitions;
  snapshot.ForEachJob([&](const core::Job& job) {
    if (core::IsTerminal(job.state)) {
      return;
    }
    for (const core::NodeShare& share : job.allocation.nodes) {
      const std::string& name = snapshot.topology->node_name(share.node);
      if (!new_nodes.contains(name)) {
        jobs_on_removed_nodes[name].push_back(job.id.value());
      }
    }
    if (!job.partition.empty() && !new_partitions.contains(job.partition)) {
      jobs_in_removed_partitions[job.partition].push_back(job.id.value());
    }
  });
  for (const auto& [node, ids] : jobs_on_removed_nodes) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the configuration was not changed: node ", node, " is no longer configured but job(s) ",
        JobList(ids), " run there; drain the node (scontrol update NodeName=", node,
        " State=DRAIN Reason=...) and reconfigure once they have ended"));
  }
  for (const auto& [partition, ids] : jobs_in_removed_partitions) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the configuration was not changed: partition ", partition,
        " is no longer configured but holds job(s) ", JobList(ids),
        "; move pending jobs (scontrol update JobId=ID Partition=...) or cancel them, and wait "
        "for running ones to end"));
  }

  // Anything else the restart could not restore (a node now smaller than what runs on it, a
  // GRES or limit a pending job asked for, ...): found by restoring every job as it will be.
  auto next = std::make_shared<const config::ClusterConfig>(*loaded);
  absl::StatusOr<std::vector<std::string>> lost = JobsTheRestartWouldCancel(
      next, std::make_shared<const topology::Topology>(*std::move(topo)), snapshot);
  if (!lost.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the configuration was not changed: ", lost.status().message()));
  }
  if (!lost->empty()) {
    constexpr size_t kShown = 5;
    std::vector<std::string> shown(lost->begin(), lost->begin() + std::min(lost->size(), kShown));
    return absl::FailedPreconditionError(absl::StrCat(
        "the configuration was not changed: restarting on it would cancel ", lost->size(),
        " job(s): ", absl::StrJoin(shown, "; "), lost->size() > kShown ? "; ..." : "",
        ". Let them end (or cancel them) first, or keep what they need in the configuration"));
  }
  ReconfigurePlan plan;
  plan.changes = DescribeConfigChanges(running, *loaded);
  plan.config = *std::move(loaded);
  return plan;
}

}  // namespace canopy::server
