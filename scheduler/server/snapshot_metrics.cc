#include "scheduler/server/snapshot_metrics.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "canopy/v1/controller.pb.h"
#include "common/metrics/family_builder.h"
#include "scheduler/lifecycle/accounting.h"
#include "scheduler/server/topology_view.h"

namespace canopy::server {
namespace {

using Labels = metrics::LabelPairs;
using GaugeFamily = metrics::FamilyBuilder;

// "XID 79: GPU has fallen off the bus" -> "XID 79"; "ECC errors" -> "ECC": a label with few
// values, whatever the provider adds after it.
std::string FindingKind(const std::string& reason) {
  if (reason.empty()) {
    return "unknown";
  }
  const size_t colon = reason.find(':');
  std::string kind = reason.substr(0, colon);
  if (colon == std::string::npos) {
    kind = kind.substr(0, kind.find(' '));
  }
  return kind.size() > 32 ? kind.substr(0, 32) : kind;
}

bool HoldsNodes(core::JobState state) {
  return state == core::JobState::kConfiguring || state == core::JobState::kRunning ||
         state == core::JobState::kCompleting;
}

}  // namespace

std::vector<prometheus::MetricFamily> SnapshotMetricFamilies(const ClusterSnapshot& snapshot) {
  GaugeFamily jobs("canopy_jobs",
                   "Jobs the controller holds, by state (finished ones until MinJobAge), "
                   "partition and account");
  GaugeFamily pending("canopy_jobs_pending", "Pending jobs by partition and reason (squeue's %r)");
  GaugeFamily job_gpus("canopy_jobs_allocated_gpus",
                       "GPUs held by configuring, running and completing jobs, by partition and "
                       "account");
  snapshot.ForEachJob([&](const core::Job& job) {
    const std::string state(core::JobStateName(job.state));
    jobs.Add({{"state", state}, {"partition", job.partition}, {"account", job.spec->account}}, 1);
    if (job.state == core::JobState::kPending) {
      pending.Add(
          {{"partition", job.partition}, {"reason", std::string(core::JobReasonName(job.reason))}},
          1);
    }
    if (HoldsNodes(job.state)) {
      int gpus = 0;
      for (const core::NodeShare& share : job.allocation.nodes) {
        gpus += share.gpus;
      }
      job_gpus.Add({{"partition", job.partition}, {"account", job.spec->account}}, gpus);
    }
  });

  GaugeFamily nodes("canopy_nodes", "Nodes by state (sinfo's long state names)");
  GaugeFamily agents("canopy_agents_connected", "Nodes whose agent has its stream open");
  GaugeFamily late("canopy_agents_heartbeat_late",
                   "Connected nodes not heard from for more than two heartbeat intervals (they "
                   "go DOWN after SlurmdTimeout)");
  GaugeFamily findings("canopy_gpu_health_findings",
                       "GPUs their agent reports unhealthy, by the kind of finding (\"XID 79\", "
                       "\"ECC\", ...: the reason's first words)");
  GaugeFamily gpus("canopy_gpus",
                   "Configured GPUs by partition, GPU type and state: allocated, idle (free) or "
                   "unavailable (node down or drained, or GPU unhealthy)");
  std::map<std::string, std::vector<std::string>> partitions_of;  // node name -> partitions
  for (const config::PartitionConfig& partition : snapshot.config->partitions) {
    for (const std::string& node : partition.nodes) {
      partitions_of[node].push_back(partition.name);
    }
  }
  int connected = 0;
  int late_nodes = 0;
  const absl::Duration late_after = 2 * snapshot.config->heartbeat_interval;
  for (const state::NodeRecord& node : *snapshot.nodes) {
    const state::NodeUse use = snapshot.UseOf(node.id);
    nodes.Add({{"state", state::SlurmStateName(node, /*long_form=*/true, use)}}, 1);
    connected += node.connected ? 1 : 0;
    late_nodes +=
        node.connected && snapshot.taken - snapshot.LastHeard(node.id) > late_after ? 1 : 0;
    for (const state::GpuStatus& g : node.registration.gpus) {
      if (!g.healthy) {
        findings.Add({{"kind", FindingKind(g.health_reason)}}, 1);
      }
    }
    const NodeUsage usage = UsageOf(node, use);
    const int idle = std::max(0, usage.total_gpus - usage.used_gpus - usage.down_gpus);
    for (const std::string& partition : partitions_of[node.name]) {
      const Labels base = {{"partition", partition}, {"gpu_type", node.gpu_type}};
      auto with_state = [&](const char* s) {
        Labels labels = base;
        labels.emplace_back("state", s);
        return labels;
      };
      gpus.Add(with_state("allocated"), usage.used_gpus);
      gpus.Add(with_state("idle"), idle);
      gpus.Add(with_state("unavailable"), usage.down_gpus);
    }
  }
  agents.Add({}, connected);
  late.Add({}, late_nodes);

  GaugeFamily usage("canopy_fairshare_usage",
                    "Decayed usage (billing unit-seconds, sshare's RawUsage) per account and "
                    "user association (user \"\" is the account's own: its users' sum)");
  GaugeFamily fairshare("canopy_fairshare_factor",
                        "Fair-share factor of each user association, in [0, 1] (sshare's "
                        "FairShare)");
  if (snapshot.accounting != nullptr) {
    const fairshare::AssociationTree& tree = snapshot.accounting->tree();
    const std::vector<fairshare::ShareRow>& rows = snapshot.accounting->shares();
    for (size_t i = 1; i < rows.size() && i < tree.size(); ++i) {  // 0 is root
      const fairshare::AssociationTree::Node& a = tree.node(static_cast<int32_t>(i));
      usage.Add({{"account", a.spec.account}, {"user", a.spec.user}}, rows[i].raw_usage);
      if (a.is_user()) {
        fairshare.Add({{"account", a.spec.account}, {"user", a.spec.user}}, rows[i].fairshare);
      }
    }
  }

  GaugeFamily switch_gpus("canopy_switch_gpus",
                          "GPUs under each switch of the fat tree (every level) by state, as "
                          "`canopyctl topology` counts them");
  GaugeFamily switch_nodes("canopy_switch_nodes",
                           "Nodes under each switch by state: idle, down (or drained), total");
  GaugeFamily switch_jobs("canopy_switch_jobs", "Jobs holding nodes under each switch");
  canopy::v1::GetTopologyResponse topology;
  if (FillTopology(snapshot, "", &topology).ok()) {
    for (const canopy::v1::Switch& s : topology.switches()) {
      const std::string level = absl::StrCat(s.level());
      auto labels = [&](const char* state) {
        return Labels{{"switch", s.name()}, {"level", level}, {"state", state}};
      };
      switch_gpus.Add(labels("allocated"), s.used_gpus());
      switch_gpus.Add(labels("idle"), s.free_gpus());
      switch_gpus.Add(labels("unavailable"), s.down_gpus());
      switch_nodes.Add(labels("idle"), s.idle_nodes());
      switch_nodes.Add(labels("down"), s.down_nodes());
      switch_nodes.Add(labels("total"), s.total_nodes());
      switch_jobs.Add({{"switch", s.name()}, {"level", level}}, s.job_ids_size());
    }
  }

  std::vector<prometheus::MetricFamily> families;
  for (GaugeFamily* family : {&jobs, &pending, &job_gpus, &nodes, &agents, &late, &findings, &gpus,
                              &switch_gpus, &switch_nodes, &switch_jobs, &usage, &fairshare}) {
    families.push_back(family->Take());
  }
  return families;
}

std::vector<prometheus::MetricFamily> SnapshotMetrics::Collect() const {
  const std::shared_ptr<const ClusterSnapshot> snapshot = source_();
  if (snapshot == nullptr) {
    return {};
  }
  return SnapshotMetricFamilies(*snapshot);
}

}  // namespace canopy::server
