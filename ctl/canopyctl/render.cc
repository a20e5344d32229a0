#include "ctl/canopyctl/render.h"

#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/slurm/hostlist.h"
#include "common/slurm/time_format.h"
#include "ctl/output/job_format.h"
#include "ctl/output/proto_time.h"
#include "ctl/output/text_table.h"

namespace canopy::ctl::canopyctl {
namespace {

std::string FormatMemory(int64_t mib) {
  if (mib >= 1024 * 1024) {
    return absl::StrFormat("%.1fT", mib / (1024.0 * 1024.0));
  }
  if (mib >= 1024) {
    return absl::StrFormat("%.0fG", mib / 1024.0);
  }
  return absl::StrCat(mib, "M");
}

std::string GpuSummary(const canopy::v1::Node& n) {
  if (n.gpus_configured() == 0 && n.gpus_size() == 0) {
    return "-";
  }
  int healthy = 0;
  for (const auto& g : n.gpus()) {
    healthy += g.health() == canopy::v1::GPU_HEALTH_UNHEALTHY ? 0 : 1;
  }
  std::string s = absl::StrCat(n.alloc_gpus(), "/", n.gpus_configured());
  if (!n.gpu_type().empty()) {
    absl::StrAppend(&s, " ", n.gpu_type());
  }
  if (healthy < n.gpus_configured() && n.gpus_size() > 0) {
    absl::StrAppend(&s, " (", n.gpus_configured() - healthy, " bad)");
  }
  return s;
}

// Job ids as a compact list: "jobs 7,9-12" (at most 8 ranges, then "+N more").
std::string JobList(const canopy::v1::Switch& s) {
  if (s.job_ids().empty()) {
    return "";
  }
  std::vector<std::string> ranges;
  int shown = 0;
  for (int i = 0; i < s.job_ids_size();) {
    int j = i;
    while (j + 1 < s.job_ids_size() && s.job_ids(j + 1) == s.job_ids(j) + 1) {
      ++j;
    }
    if (ranges.size() < 8) {
      ranges.push_back(j == i ? absl::StrCat(s.job_ids(i))
                              : absl::StrCat(s.job_ids(i), "-", s.job_ids(j)));
      shown = j + 1;
    }
    i = j + 1;
  }
  std::string out = absl::StrCat("; jobs ", absl::StrJoin(ranges, ","));
  if (shown < s.job_ids_size()) {
    absl::StrAppend(&out, " +", s.job_ids_size() - shown, " more");
  }
  return out;
}

std::string SwitchLine(const canopy::v1::Switch& s) {
  return absl::StrCat(
      absl::StrFormat(
          "%s (level %d): %d nodes, %d idle, %d down; GPUs %d: %d free, %d used, %d down", s.name(),
          s.level(), s.total_nodes(), s.idle_nodes(), s.down_nodes(), s.total_gpus(), s.free_gpus(),
          s.used_gpus(), s.down_gpus()),
      JobList(s));
}

// Node states under a leaf, grouped: "idle gpu[001-006]  down* gpu[007-008]".
std::string LeafNodeStates(const canopy::v1::Switch& leaf,
                           const std::map<std::string, const canopy::v1::Node*>& nodes) {
  std::map<std::string, std::vector<std::string>> by_state;
  for (const std::string& name : leaf.nodes()) {
    auto it = nodes.find(name);
    by_state[it == nodes.end() ? "?" : it->second->slurm_state()].push_back(name);
  }
  std::vector<std::string> parts;
  for (const auto& [state, names] : by_state) {
    parts.push_back(absl::StrCat(state, " ", slurm::CompressHostlist(names)));
  }
  return absl::StrJoin(parts, "  ");
}

void AppendSubtree(const std::string& name, const std::string& prefix, bool last, bool root,
                   const std::map<std::string, const canopy::v1::Switch*>& switches,
                   const std::map<std::string, const canopy::v1::Node*>& nodes, std::string& out) {
  const canopy::v1::Switch& s = *switches.at(name);
  const std::string branch = root ? "" : (last ? "└── " : "├── ");
  absl::StrAppend(&out, prefix, branch, SwitchLine(s), "\n");
  const std::string child_prefix = root ? prefix : prefix + (last ? "    " : "│   ");
  if (s.level() == 0) {
    absl::StrAppend(&out, child_prefix, "    ", LeafNodeStates(s, nodes), "\n");
    return;
  }
  for (int i = 0; i < s.child_switches_size(); ++i) {
    if (switches.contains(s.child_switches(i))) {
      AppendSubtree(s.child_switches(i), child_prefix, i + 1 == s.child_switches_size(), false,
                    switches, nodes, out);
    }
  }
}

std::string Nodes(const canopy::v1::Job& job) {
  return slurm::CompressHostlist(std::vector<std::string>(job.nodes().begin(), job.nodes().end()));
}

}  // namespace

std::string RenderNodesTable(const canopy::v1::ListNodesResponse& nodes) {
  output::TextTable table(
      {"NODE", "STATE", "CPUS", "MEMORY", "GPUS(used/total)", "LEAF", "REASON"});
  for (const canopy::v1::Node& n : nodes.nodes()) {
    table.AddRow({n.name(), n.slurm_state(), absl::StrCat(n.alloc_cpus(), "/", n.cpus()),
                  FormatMemory(n.real_memory_mib()), GpuSummary(n),
                  n.switch_path().empty() ? "-" : n.switch_path(n.switch_path_size() - 1),
                  n.reason().empty() ? "" : absl::StrCat(n.reason(), " [", n.reason_user(), "]")});
  }
  return table.Render();
}

std::string RenderTopologyTree(const canopy::v1::GetTopologyResponse& topology,
                               const canopy::v1::ListNodesResponse& nodes) {
  std::map<std::string, const canopy::v1::Node*> node_by_name;
  for (const auto& n : nodes.nodes()) {
    node_by_name[n.name()] = &n;
  }
  std::map<std::string, const canopy::v1::Switch*> switches;
  for (const auto& s : topology.switches()) {
    switches[s.name()] = &s;
  }
  std::string out;
  if (topology.switches().empty() && topology.blocks().empty()) {
    absl::StrAppend(&out, "no switches configured (flat cluster): ", nodes.nodes_size(),
                    " nodes\n");
  }
  // Roots: switches whose parent is not in the answer (with NODE, the top of its path).
  for (const auto& s : topology.switches()) {
    if (s.parent().empty() || !switches.contains(s.parent())) {
      AppendSubtree(s.name(), "", true, true, switches, node_by_name, out);
    }
  }
  for (const auto& b : topology.blocks()) {
    std::vector<std::string> names(b.nodes().begin(), b.nodes().end());
    absl::StrAppend(&out, "block ", b.name(), ": ", b.nodes_size(), " nodes ",
                    slurm::CompressHostlist(names), "\n");
  }
  if (topology.block_sizes_size() > 0) {
    absl::StrAppend(&out, "block sizes: ", absl::StrJoin(topology.block_sizes(), ","), "\n");
  }
  if (!topology.unswitched_nodes().empty()) {
    std::vector<std::string> names(topology.unswitched_nodes().begin(),
                                   topology.unswitched_nodes().end());
    absl::StrAppend(&out, "under no switch: ", slurm::CompressHostlist(names), "\n");
  }
  return out;
}

std::string RenderNodeUpdate(const std::string& verb,
                             const canopy::v1::UpdateNodeResponse& response) {
  std::vector<std::string> names(response.updated_nodes().begin(), response.updated_nodes().end());
  return absl::StrCat(verb, ": ", slurm::CompressHostlist(names), "\n");
}

std::string RenderPing(const canopy::v1::PingResponse& p, const std::string& target) {
  return absl::StrCat("canopyd ", p.version(), " on ", p.hostname(), " (cluster ", p.cluster_name(),
                      ") is UP, uptime ", p.uptime_seconds(), "s, at ", target, "\n");
}

std::string RenderJobsTable(const canopy::v1::ListJobsResponse& jobs) {
  const absl::Time now = output::ToTime(jobs.server_time());
  output::TextTable table(
      {"JOBID", "NAME", "USER", "STATE", "NODES", "LEAVES", "TIME", "NODELIST(REASON)"});
  for (const canopy::v1::Job& j : jobs.jobs()) {
    table.AddRow({output::JobIdString(j), j.spec().name(), j.user_name(),
                  output::JobStateName(j.state()), absl::StrCat(output::JobNodeCount(j)),
                  j.leaf_switches().empty() ? "-" : absl::StrJoin(j.leaf_switches(), ","),
                  slurm::FormatSlurmDuration(output::JobRunTime(j, now)),
                  j.nodes().empty() ? absl::StrCat("(", j.reason(), ")") : Nodes(j)});
  }
  return table.Render();
}

std::string RenderJobDetails(const canopy::v1::Job& j, absl::Time now, absl::TimeZone tz) {
  std::string s;
  absl::StrAppend(&s, "Job ", output::JobIdString(j), " (", j.spec().name(), ") of ", j.user_name(),
                  "\n");
  absl::StrAppend(&s, "  State:      ", output::JobStateName(j.state()),
                  "  Reason: ", j.reason().empty() ? "None" : j.reason(), "\n");
  absl::StrAppend(&s, "  ExitCode:   ", output::ExitCodeString(j.exit_code(), j.exit_signal()),
                  "\n");
  absl::StrAppend(&s, "  Partition:  ", j.partition(), "  Priority: ", j.priority(), "\n");
  absl::StrAppend(&s, "  Nodes:      ", output::JobNodeCount(j), j.nodes().empty() ? "" : " ",
                  Nodes(j), "\n");
  absl::StrAppend(&s, "  GPUs/node:  ", output::GpuTres(j.spec(), j.spec().gpus_per_node()), "\n");
  absl::StrAppend(&s, "  Leaves:     ",
                  j.leaf_switches().empty() ? "-" : absl::StrJoin(j.leaf_switches(), ","), "\n");
  absl::StrAppend(&s, "  Placement:  ",
                  j.placement_explanation().empty() ? "-" : j.placement_explanation(), "\n");
  absl::StrAppend(&s, "  Submitted:  ", output::FormatTimestampOr(j.submit_time(), tz, "-"), "\n");
  absl::StrAppend(&s, "  Started:    ", output::FormatTimestampOr(j.start_time(), tz, "-"), "\n");
  absl::StrAppend(&s, "  Ended:      ", output::FormatTimestampOr(j.end_time(), tz, "-"), "\n");
  absl::StrAppend(&s, "  RunTime:    ", slurm::FormatSlurmDuration(output::JobRunTime(j, now)),
                  "  TimeLimit: ", output::JobTimeLimitString(j), "\n");
  return s;
}

std::string RenderWhoAmI(const canopy::v1::WhoAmIResponse& me) {
  return absl::StrCat(
      me.user_name(), " (uid ", me.user_id(), ")",
      me.authenticated() ? ", authenticated by the unix socket" : ", not authenticated (TCP)",
      me.operator_() ? ", operator" : "", "\n");
}

}  // namespace canopy::ctl::canopyctl
