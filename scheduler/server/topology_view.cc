#include "scheduler/server/topology_view.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace canopy::server {
namespace {}  // namespace

NodeUsage UsageOf(const state::NodeRecord& n, const state::NodeUse& use) {
  NodeUsage u;
  u.total_gpus = n.gpus_configured;
  u.used_gpus = std::min(use.gpus, n.gpus_configured);
  u.down = !n.Usable();
  if (u.down) {
    u.down_gpus = u.total_gpus - u.used_gpus;
  } else {
    int unhealthy = 0;
    for (const state::GpuStatus& g : n.registration.gpus) {
      unhealthy += g.healthy ? 0 : 1;
    }
    u.down_gpus = std::min(unhealthy, u.total_gpus - u.used_gpus);
  }
  u.idle = !u.down && n.BaseState(use) == state::NodeBaseState::kIdle;
  return u;
}

namespace {

// Per node, the jobs holding it now (CONFIGURING, RUNNING or COMPLETING), ascending.
std::vector<std::vector<uint32_t>> JobsByNode(const ClusterSnapshot& snap) {
  std::vector<std::vector<uint32_t>> out(snap.nodes->size());
  snap.ForEachJob([&](const core::Job& job) {
    const core::JobState s = job.state;
    if (s != core::JobState::kConfiguring && s != core::JobState::kRunning &&
        s != core::JobState::kCompleting) {
      return;
    }
    for (const core::NodeShare& share : job.allocation.nodes) {
      out[share.node.value()].push_back(job.id.value());
    }
  });
  return out;
}

void FillSwitch(const ClusterSnapshot& snap, const std::vector<NodeUsage>& usage,
                const std::vector<std::vector<uint32_t>>& jobs_by_node, core::SwitchId sw,
                canopy::v1::Switch* out) {
  const topology::Topology& topo = *snap.topology;
  out->set_name(topo.switch_name(sw));
  out->set_level(topo.level(sw));
  if (topo.parent(sw).valid()) {
    out->set_parent(topo.switch_name(topo.parent(sw)));
  }
  for (core::SwitchId child : topo.child_switches(sw)) {
    out->add_child_switches(topo.switch_name(child));
  }
  for (core::NodeId n : topo.leaf_nodes(sw)) {
    out->add_nodes(topo.node_name(n));
  }
  int total = 0, idle = 0, down = 0, gpus = 0, used = 0, down_gpus = 0;
  std::vector<uint32_t> jobs;
  for (core::NodeId n : topo.nodes_under(sw)) {
    const std::vector<uint32_t>& here = jobs_by_node[n.value()];
    jobs.insert(jobs.end(), here.begin(), here.end());
    const NodeUsage& u = usage[n.value()];
    ++total;
    idle += u.idle ? 1 : 0;
    down += u.down ? 1 : 0;
    gpus += u.total_gpus;
    used += u.used_gpus;
    down_gpus += u.down_gpus;
  }
  out->set_total_nodes(total);
  out->set_idle_nodes(idle);
  out->set_down_nodes(down);
  out->set_total_gpus(gpus);
  out->set_used_gpus(used);
  out->set_down_gpus(down_gpus);
  out->set_free_gpus(std::max(0, gpus - used - down_gpus));
  std::sort(jobs.begin(), jobs.end());
  jobs.erase(std::unique(jobs.begin(), jobs.end()), jobs.end());
  for (uint32_t id : jobs) {
    out->add_job_ids(id);
  }
}

}  // namespace

absl::Status FillTopology(const ClusterSnapshot& snapshot, const std::string& node,
                          canopy::v1::GetTopologyResponse* response) {
  const topology::Topology& topo = *snapshot.topology;
  response->set_topology_plugin(snapshot.config->topology_plugin);
  std::vector<NodeUsage> usage;
  usage.reserve(snapshot.nodes->size());
  for (const state::NodeRecord& n : *snapshot.nodes) {
    usage.push_back(UsageOf(n, snapshot.UseOf(n.id)));
  }

  std::vector<core::SwitchId> wanted;
  if (!node.empty()) {
    const core::NodeId id = topo.FindNode(node);
    if (!id.valid()) {
      return absl::NotFoundError(absl::StrCat("node '", node, "' is not in the configuration"));
    }
    wanted = topo.SwitchPath(id);
    std::reverse(wanted.begin(), wanted.end());  // leaf first, as scontrol prints it
  } else {
    for (int level = 0; level <= topo.max_level(); ++level) {
      for (core::SwitchId sw : topo.switches_at_level(level)) {
        wanted.push_back(sw);
      }
    }
    for (core::NodeId n : topo.unattached_nodes()) {
      response->add_unswitched_nodes(topo.node_name(n));
    }
  }
  const std::vector<std::vector<uint32_t>> jobs_by_node = JobsByNode(snapshot);
  for (core::SwitchId sw : wanted) {
    FillSwitch(snapshot, usage, jobs_by_node, sw, response->add_switches());
  }
  if (node.empty()) {
    for (int b = 0; b < topo.block_count(); ++b) {
      canopy::v1::Block* block = response->add_blocks();
      block->set_name(topo.block_name(core::BlockId(b)));
      for (core::NodeId n : topo.block_nodes(core::BlockId(b))) {
        block->add_nodes(topo.node_name(n));
      }
    }
    for (int size : topo.block_sizes()) {
      response->add_block_sizes(size);
    }
  }
  return absl::OkStatus();
}

}  // namespace canopy::server
