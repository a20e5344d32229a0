#include "ctl/canopyctl/canopyctl.h"

#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/slurm/hostlist.h"
#include "ctl/canopyctl/jobs.h"
#include "ctl/client/controller_client.h"
#include "ctl/output/text_table.h"
#include "ctl/srun/srun.h"

namespace canopy::ctl::canopyctl {
namespace {

constexpr char kUsage[] = R"(usage: canopyctl [--controller HOST:PORT] COMMAND [ARGS]

commands:
  nodes [--partition P] [NODES]   nodes with state, CPUs, memory, GPUs, leaf switch, reason
  topology [NODE]                 the switch tree with node states and GPU usage per switch
  drain NODES --reason TEXT       stop placing jobs on NODES (running jobs finish)
  down NODES --reason TEXT        take NODES out of service now
  resume NODES                    return drained/down NODES to service
  ping                            is the controller up?
  jobs [--user U] [--partition P] jobs with state, nodes, leaf switches, time, reason/nodelist
  job ID                          one job: state, exit code, nodes, leaves, placement, times
  cancel ID...                    cancel jobs
  run [SRUN OPTIONS] CMD [ARGS]   run CMD as a job step, as srun does
  whoami                          who the controller thinks you are

The controller is found from --controller, else $CANOPY_CONTROLLER, else the config named by
$CANOPY_CONFIG or $SLURM_CONF (its unix socket when readable, so job commands know who you
are). Called as scontrol, sinfo, sbatch, squeue, scancel or srun, the same binary acts as that
Slurm command.
)";

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

int NodesCommand(client::ControllerClient& client, const std::vector<std::string>& args,
                 std::ostream& out, std::ostream& err) {
  canopy::v1::ListNodesRequest request;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--partition" || args[i] == "-p") {
      if (i + 1 >= args.size()) {
        err << "canopyctl nodes: --partition needs a partition name\n";
        return 2;
      }
      request.set_partition(args[++i]);
    } else if (absl::StartsWith(args[i], "-")) {
      err << "canopyctl nodes: unknown option '" << args[i] << "'\n";
      return 2;
    } else {
      request.set_nodes(args[i]);
    }
  }
  absl::StatusOr<canopy::v1::ListNodesResponse> nodes = client.ListNodes(request);
  if (!nodes.ok()) {
    err << "canopyctl: " << nodes.status().message() << "\n";
    return 1;
  }
  output::TextTable table(
      {"NODE", "STATE", "CPUS", "MEMORY", "GPUS(used/total)", "LEAF", "REASON"});
  for (const canopy::v1::Node& n : nodes->nodes()) {
    table.AddRow({n.name(), n.slurm_state(), absl::StrCat(n.alloc_cpus(), "/", n.cpus()),
                  FormatMemory(n.real_memory_mib()), GpuSummary(n),
                  n.switch_path().empty() ? "-" : n.switch_path(n.switch_path_size() - 1),
                  n.reason().empty() ? "" : absl::StrCat(n.reason(), " [", n.reason_user(), "]")});
  }
  table.Print(out);
  return 0;
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

void PrintSubtree(const std::string& name, const std::string& prefix, bool last, bool root,
                  const std::map<std::string, const canopy::v1::Switch*>& switches,
                  const std::map<std::string, const canopy::v1::Node*>& nodes, std::ostream& out) {
  const canopy::v1::Switch& s = *switches.at(name);
  const std::string branch = root ? "" : (last ? "└── " : "├── ");
  out << prefix << branch << SwitchLine(s) << "\n";
  const std::string child_prefix = root ? prefix : prefix + (last ? "    " : "│   ");
  if (s.level() == 0) {
    out << child_prefix << "    " << LeafNodeStates(s, nodes) << "\n";
    return;
  }
  for (int i = 0; i < s.child_switches_size(); ++i) {
    if (switches.contains(s.child_switches(i))) {
      PrintSubtree(s.child_switches(i), child_prefix, i + 1 == s.child_switches_size(), false,
                   switches, nodes, out);
    }
  }
}

int TopologyCommand(client::ControllerClient& client, const std::vector<std::string>& args,
                    std::ostream& out, std::ostream& err) {
  canopy::v1::GetTopologyRequest request;
  if (!args.empty()) {
    request.set_node(args[0]);
  }
  absl::StatusOr<canopy::v1::GetTopologyResponse> topo = client.GetTopology(request);
  if (!topo.ok()) {
    err << "canopyctl: " << topo.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<canopy::v1::ListNodesResponse> nodes = client.ListNodes({});
  if (!nodes.ok()) {
    err << "canopyctl: " << nodes.status().message() << "\n";
    return 1;
  }
  std::map<std::string, const canopy::v1::Node*> node_by_name;
  for (const auto& n : nodes->nodes()) {
    node_by_name[n.name()] = &n;
  }
  std::map<std::string, const canopy::v1::Switch*> switches;
  for (const auto& s : topo->switches()) {
    switches[s.name()] = &s;
  }
  if (topo->switches().empty() && topo->blocks().empty()) {
    out << "no switches configured (flat cluster): " << nodes->nodes_size() << " nodes\n";
  }
  // Roots: switches whose parent is not in the answer (with NODE, the top of its path).
  for (const auto& s : topo->switches()) {
    if (s.parent().empty() || !switches.contains(s.parent())) {
      PrintSubtree(s.name(), "", true, true, switches, node_by_name, out);
    }
  }
  for (const auto& b : topo->blocks()) {
    std::vector<std::string> names(b.nodes().begin(), b.nodes().end());
    out << "block " << b.name() << ": " << b.nodes_size() << " nodes "
        << slurm::CompressHostlist(names) << "\n";
  }
  if (topo->block_sizes_size() > 0) {
    out << "block sizes: " << absl::StrJoin(topo->block_sizes(), ",") << "\n";
  }
  if (!topo->unswitched_nodes().empty()) {
    std::vector<std::string> names(topo->unswitched_nodes().begin(),
                                   topo->unswitched_nodes().end());
    out << "under no switch: " << slurm::CompressHostlist(names) << "\n";
  }
  return 0;
}

int NodeAdminCommand(client::ControllerClient& client, canopy::v1::UpdateNodeRequest::Action action,
                     const std::string& verb, const std::vector<std::string>& args,
                     std::ostream& out, std::ostream& err) {
  canopy::v1::UpdateNodeRequest request;
  request.set_action(action);
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--reason") {
      if (i + 1 >= args.size()) {
        err << "canopyctl " << verb << ": --reason needs a text\n";
        return 2;
      }
      request.set_reason(args[++i]);
    } else if (absl::StartsWith(args[i], "--reason=")) {
      request.set_reason(args[i].substr(9));
    } else {
      request.set_nodes(args[i]);
    }
  }
  if (request.nodes().empty()) {
    err << "canopyctl " << verb << ": name the nodes, e.g. canopyctl " << verb << " gpu[001-004]"
        << (verb == "resume" ? "" : " --reason \"bad fan\"") << "\n";
    return 2;
  }
  absl::StatusOr<canopy::v1::UpdateNodeResponse> r = client.UpdateNode(request);
  if (!r.ok()) {
    err << "canopyctl: " << r.status().message() << "\n";
    return 1;
  }
  std::vector<std::string> names(r->updated_nodes().begin(), r->updated_nodes().end());
  out << verb << ": " << slurm::CompressHostlist(names) << "\n";
  return 0;
}

}  // namespace

int RunCanopyctl(const std::vector<std::string>& all_args, std::ostream& out, std::ostream& err) {
  std::string controller;
  std::vector<std::string> args;
  for (size_t i = 0; i < all_args.size(); ++i) {
    if (all_args[i] == "--controller" && i + 1 < all_args.size()) {
      controller = all_args[++i];
    } else if (absl::StartsWith(all_args[i], "--controller=")) {
      controller = all_args[i].substr(13);
    } else {
      args.push_back(all_args[i]);
    }
  }
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    (args.empty() ? err : out) << kUsage;
    return args.empty() ? 2 : 0;
  }
  const std::string command = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "run") {
    return srun::RunSrun(rest, controller, out, err);
  }
  if (command != "nodes" && command != "topology" && command != "ping" && command != "drain" &&
      command != "down" && command != "resume" && command != "jobs" && command != "job" &&
      command != "cancel" && command != "whoami") {
    err << "canopyctl: unknown command '" << command << "'\n" << kUsage;
    return 2;
  }
  absl::StatusOr<client::ControllerClient> client = client::ControllerClient::Connect(controller);
  if (!client.ok()) {
    err << "canopyctl: " << client.status().message() << "\n";
    return 1;
  }
  if (command == "nodes") {
    return NodesCommand(*client, rest, out, err);
  }
  if (command == "topology") {
    return TopologyCommand(*client, rest, out, err);
  }
  if (command == "jobs") {
    return JobsCommand(*client, rest, out, err);
  }
  if (command == "job") {
    return JobCommand(*client, rest, out, err);
  }
  if (command == "cancel") {
    return CancelCommand(*client, rest, out, err);
  }
  if (command == "whoami") {
    return WhoAmICommand(*client, out, err);
  }
  if (command == "ping") {
    absl::StatusOr<canopy::v1::PingResponse> p = client->Ping();
    if (!p.ok()) {
      err << "canopyctl: " << p.status().message() << "\n";
      return 1;
    }
    out << "canopyd " << p->version() << " on " << p->hostname() << " (cluster "
        << p->cluster_name() << ") is UP, uptime " << p->uptime_seconds() << "s, at "
        << client->target() << "\n";
    return 0;
  }
  using Action = canopy::v1::UpdateNodeRequest;
  const Action::Action action = command == "drain"  ? Action::ACTION_DRAIN
                                : command == "down" ? Action::ACTION_DOWN
                                                    : Action::ACTION_RESUME;
  return NodeAdminCommand(*client, action, command, rest, out, err);
}

}  // namespace canopy::ctl::canopyctl
