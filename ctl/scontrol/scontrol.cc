#include "ctl/scontrol/scontrol.h"

#include <cstdlib>
#include <fstream>
#include <optional>

#include "absl/strings/str_cat.h"
#include "common/slurm/hostlist.h"
#include "common/slurm/slurm_version.h"
#include "ctl/client/connect_or_say.h"
#include "ctl/client/controller_client.h"
#include "ctl/scontrol/batch_script.h"
#include "ctl/scontrol/daemon_commands.h"
#include "ctl/scontrol/info_commands.h"
#include "ctl/scontrol/job_words.h"
#include "ctl/scontrol/jobs.h"
#include "ctl/scontrol/list_pids.h"
#include "ctl/scontrol/options.h"
#include "ctl/scontrol/render.h"

namespace canopy::ctl::scontrol {
namespace {

// `scontrol show hostnames [EXPR]`: one host per line. Without EXPR Slurm 22.05 reads
// $SLURM_NODELIST. Slurm exits 0 even when the expression is bad; so do we. The first stderr
// line of an error is ours (it says what is wrong); the second is Slurm's.
int ShowHostnames(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string expr;
  if (!args.empty()) {
    expr = args[0];
  } else if (const char* env = std::getenv("SLURM_NODELIST"); env != nullptr) {
    expr = env;
  } else {
    err << "scontrol: error: host list is empty\n";
    return 0;
  }
  absl::StatusOr<std::vector<std::string>> hosts = slurm::ExpandHostlist(expr);
  if (!hosts.ok()) {
    err << "scontrol: error: " << hosts.status().message() << "\n"
        << "Invalid hostlist: " << expr << "\n";
    return 0;
  }
  for (const std::string& h : *hosts) {
    out << h << "\n";
  }
  return 0;
}

// Slurm reads an argument starting with '/' as a file of names, one or more per line.
absl::StatusOr<std::string> HostlistArgument(const std::string& arg) {
  if (arg.empty() || arg[0] != '/') {
    return arg;
  }
  std::ifstream in(arg);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("Can not open ", arg));
  }
  std::string text, line;
  while (std::getline(in, line)) {
    absl::StrAppend(&text, line, ",");
  }
  if (in.bad()) {
    return absl::DataLossError(absl::StrCat("Error reading ", arg));
  }
  return text;
}

// `scontrol show hostlist[sorted] LIST`: the ranged form, exactly as Slurm rewrites it (text
// before the last bracket kept as written). Exit 1 on a bad list.
int ShowHostlist(const std::vector<std::string>& args, bool sorted, std::ostream& out,
                 std::ostream& err) {
  if (args.empty()) {
    // Slurm prints its whole help text here; we print our usage, with the same stderr and code.
    out << "usage: scontrol show hostlist[sorted] LIST   (LIST: hostlist, or /path/to/file)\n";
    err << "invalid encode argument\n";
    return 1;
  }
  absl::StatusOr<std::string> expr = HostlistArgument(args[0]);
  if (!expr.ok()) {
    err << expr.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<std::string> compressed = slurm::CompressHostlistExpression(
      *expr, sorted ? slurm::HostlistOrder::kSorted : slurm::HostlistOrder::kAsWritten);
  if (!compressed.ok()) {
    err << "scontrol: error: " << compressed.status().message() << "\n"
        << "Invalid hostlist: " << *expr << "\n";
    return 1;
  }
  out << *compressed << "\n";
  return 0;
}

// `scontrol show topology [NODE]`, in Slurm's one-line-per-switch format.
int ShowTopology(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  absl::StatusOr<client::ControllerClient> client = client::ConnectOrSay("scontrol", err);
  if (!client.ok()) {
    return 1;
  }
  // Always fetch the whole tree: Slurm prints each switch's full subtree of nodes, even when
  // only the switches above one node are asked for.
  absl::StatusOr<canopy::v1::GetTopologyResponse> topo = client->GetTopology({});
  if (!topo.ok()) {
    err << "scontrol: error: " << topo.status().message() << "\n";
    return 1;
  }
  out << RenderTopology(*topo, args.empty() ? std::nullopt : std::optional(args[0]));
  return 0;
}

// `scontrol update NodeName=X State=DRAIN|DOWN|RESUME Reason=...`.
int UpdateNode(const std::vector<std::string>& args, std::ostream& err) {
  absl::StatusOr<canopy::v1::UpdateNodeRequest> request = ParseNodeUpdate(args);
  if (!request.ok()) {
    err << request.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<client::ControllerClient> client = client::ConnectOrSay("scontrol", err);
  if (!client.ok()) {
    return 1;
  }
  absl::StatusOr<canopy::v1::UpdateNodeResponse> r = client->UpdateNode(*request);
  if (!r.ok()) {
    err << "slurm_update error: " << r.status().message() << "\n";
    return 1;
  }
  return 0;
}

int Ping(std::ostream& out, std::ostream& err) {
  absl::StatusOr<client::ControllerClient> client = client::ConnectOrSay("scontrol", err);
  if (!client.ok()) {
    return 1;
  }
  absl::StatusOr<canopy::v1::PingResponse> p = client->Ping();
  if (!p.ok()) {
    out << "Slurmctld(primary) at " << client->target() << " is DOWN\n";
    return 1;
  }
  out << "Slurmctld(primary) at " << p->hostname() << " is UP\n";
  return 0;
}

// listpids: inside a job, only its cluster's and node's processes (list_pids.h).
ListPidsScope CallerScope() {
  ListPidsScope scope;
  if (const char* cluster = std::getenv("SLURM_CLUSTER_NAME"); cluster != nullptr) {
    scope.cluster = cluster;
  }
  if (const char* node = std::getenv("SLURMD_NODENAME"); node != nullptr) {
    scope.node = node;
  }
  return scope;
}

}  // namespace

int RunScontrol(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  absl::StatusOr<ScontrolRequest> request = ParseScontrolArgs(args);
  if (!request.ok()) {
    err << request.status().message() << "\n";
    return 1;
  }
  InfoOptions info;
  info.one_liner = request->one_liner;
  info.quiet = request->quiet;
  switch (request->command) {
    case Command::kShowHostnames:
      return ShowHostnames(request->args, out, err);
    case Command::kShowHostlist:
      return ShowHostlist(request->args, false, out, err);
    case Command::kShowHostlistSorted:
      return ShowHostlist(request->args, true, out, err);
    case Command::kShowTopology:
      return ShowTopology(request->args, out, err);
    case Command::kShowJob:
      return ShowJobs(request->args, request->one_liner, request->details, out, err);
    case Command::kUpdate:
      return IsJobUpdate(request->args) ? UpdateJob(request->args, err)
                                        : UpdateNode(request->args, err);
    case Command::kPing:
      return Ping(out, err);
    case Command::kHold:
    case Command::kUserHold:
    case Command::kRelease:
    case Command::kRequeue:
    case Command::kRequeueHold:
      return ControlJobs(request->command, request->args, err);
    case Command::kTop:
      return TopJobs(request->args, err);
    case Command::kSuspend:
    case Command::kResume:
      return SuspendJobs(request->args, request->quiet, err);
    case Command::kShowNode:
      return ShowNodes(request->args, info, out, err);
    case Command::kShowPartition:
      return ShowPartitions(request->args, info, out, err);
    case Command::kShowConfig:
      return ShowConfig(out, err);
    case Command::kShowReservation:
      return ShowReservations(request->args, info, out);
    case Command::kShowSteps:
      return ShowSteps(request->args, info, out, err);
    case Command::kWriteBatchScript:
      return WriteBatchScript(request->args, request->quiet, out, err);
    case Command::kReconfigure:
      return Reconfigure(request->quiet, request->verbose, err);
    case Command::kNotify:
      return Notify(request->args, err);
    case Command::kListPids:
      return ListPids(request->args, ReadJobProcesses(), CallerScope(), out, err);
    case Command::kVersion:
      out << slurm::SlurmVersionLine("scontrol");
      return 0;
  }
  return 1;
}

}  // namespace canopy::ctl::scontrol
