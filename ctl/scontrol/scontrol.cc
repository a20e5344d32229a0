#include "ctl/scontrol/scontrol.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <tuple>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/slurm/hostlist.h"
#include "ctl/client/controller_client.h"

namespace canopy::ctl::scontrol {
namespace {

// Slurm accepts any unambiguous prefix of a keyword ("sh" for "show", "hostn" for "hostnames").
bool Abbrev(const std::string& word, const std::string& keyword, size_t min_len) {
  const std::string w = absl::AsciiStrToLower(word);
  return w.size() >= min_len && w.size() <= keyword.size() && keyword.compare(0, w.size(), w) == 0;
}

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
  absl::StatusOr<client::ControllerClient> client = client::ControllerClient::Connect("");
  if (!client.ok()) {
    err << "scontrol: error: " << client.status().message() << "\n";
    return 1;
  }
  // Always fetch the whole tree: Slurm prints each switch's full subtree of nodes, even when
  // only the switches above one node are asked for.
  absl::StatusOr<canopy::v1::GetTopologyResponse> topo = client->GetTopology({});
  if (!topo.ok()) {
    err << "scontrol: error: " << topo.status().message() << "\n";
    return 1;
  }
  std::map<std::string, const canopy::v1::Switch*> by_name;
  for (const auto& s : topo->switches()) {
    by_name[s.name()] = &s;
  }
  std::function<void(const canopy::v1::Switch&, std::vector<std::string>&)> collect =
      [&](const canopy::v1::Switch& s, std::vector<std::string>& nodes) {
        nodes.insert(nodes.end(), s.nodes().begin(), s.nodes().end());
        for (const std::string& c : s.child_switches()) {
          if (auto it = by_name.find(c); it != by_name.end()) {
            collect(*it->second, nodes);
          }
        }
      };
  std::vector<const canopy::v1::Switch*> shown;
  if (args.empty()) {
    for (const auto& s : topo->switches()) {
      shown.push_back(&s);
    }
  } else {
    // The node's leaf, then each parent up to the top.
    for (const auto& s : topo->switches()) {
      if (std::find(s.nodes().begin(), s.nodes().end(), args[0]) != s.nodes().end()) {
        for (const canopy::v1::Switch* sw = &s; sw != nullptr;) {
          shown.push_back(sw);
          auto parent = by_name.find(sw->parent());
          sw = parent == by_name.end() ? nullptr : parent->second;
        }
        break;
      }
    }
  }
  for (const canopy::v1::Switch* s : shown) {
    std::vector<std::string> nodes;
    collect(*s, nodes);
    out << "SwitchName=" << s->name() << " Level=" << s->level() << " LinkSpeed=1";
    if (!nodes.empty()) {
      out << " Nodes=" << slurm::CompressHostlist(nodes);
    }
    if (s->child_switches_size() > 0) {
      std::vector<std::string> children(s->child_switches().begin(), s->child_switches().end());
      out << " Switches=" << slurm::CompressHostlist(children);
    }
    out << "\n";
  }
  return 0;
}

// `scontrol update NodeName=X State=DRAIN|DOWN|RESUME Reason=...`.
int UpdateNode(const std::vector<std::string>& args, std::ostream&, std::ostream& err) {
  canopy::v1::UpdateNodeRequest request;
  std::string state;
  for (const std::string& arg : args) {
    const size_t eq = arg.find('=');
    if (eq == std::string::npos) {
      err << "scontrol: error: Invalid input: " << arg << "\nRequest aborted\n";
      return 1;
    }
    const std::string key = absl::AsciiStrToLower(arg.substr(0, eq));
    const std::string value = arg.substr(eq + 1);
    if (key == "nodename") {
      request.set_nodes(value);
    } else if (key == "state") {
      state = absl::AsciiStrToLower(value);
    } else if (key == "reason") {
      request.set_reason(value);
    } else {
      err << "scontrol: error: Update of this parameter is not supported: " << arg
          << "\nRequest aborted\n";
      return 1;
    }
  }
  if (state == "drain") {
    request.set_action(canopy::v1::UpdateNodeRequest::ACTION_DRAIN);
  } else if (state == "down") {
    request.set_action(canopy::v1::UpdateNodeRequest::ACTION_DOWN);
  } else if (state == "resume" || state == "idle" || state == "undrain") {
    request.set_action(canopy::v1::UpdateNodeRequest::ACTION_RESUME);
  } else {
    err << "scontrol: error: Invalid node state specified\n";
    return 1;
  }
  if (request.action() != canopy::v1::UpdateNodeRequest::ACTION_RESUME &&
      request.reason().empty()) {
    err << "You must specify a reason when DOWNING or DRAINING a node. Request denied\n";
    return 1;
  }
  absl::StatusOr<client::ControllerClient> client = client::ControllerClient::Connect("");
  if (!client.ok()) {
    err << "scontrol: error: " << client.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<canopy::v1::UpdateNodeResponse> r = client->UpdateNode(request);
  if (!r.ok()) {
    err << "slurm_update error: " << r.status().message() << "\n";
    return 1;
  }
  return 0;
}

int Ping(std::ostream& out, std::ostream& err) {
  absl::StatusOr<client::ControllerClient> client = client::ControllerClient::Connect("");
  if (!client.ok()) {
    err << "scontrol: error: " << client.status().message() << "\n";
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

}  // namespace

int RunScontrol(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    err << "scontrol: interactive mode is not supported by Canopy; give a command, e.g. "
           "'scontrol show hostnames gpu[001-004]'\n";
    return 1;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (Abbrev(args[0], "show", 3)) {
    if (rest.empty()) {
      err << "too few arguments for keyword:show\n";
      return 1;
    }
    // "show hostnames=EXPR" is the same as "show hostnames EXPR".
    std::string entity = rest[0];
    std::vector<std::string> what(rest.begin() + 1, rest.end());
    if (const size_t eq = entity.find('='); eq != std::string::npos) {
      what.insert(what.begin(), entity.substr(eq + 1));
      entity = entity.substr(0, eq);
    }
    if (what.size() > 1) {
      err << "too many arguments for keyword:show\n";
      return 1;
    }
    if (Abbrev(entity, "hostnames", 5)) {
      return ShowHostnames(what, out, err);
    }
    if (Abbrev(entity, "hostlistsorted", 9)) {
      return ShowHostlist(what, true, out, err);
    }
    if (Abbrev(entity, "hostlist", 5)) {
      return ShowHostlist(what, false, out, err);
    }
    if (Abbrev(entity, "topology", 1)) {
      return ShowTopology(what, out, err);
    }
    err << "invalid entity:" << entity << " for keyword:show \n";
    return 1;
  }
  if (Abbrev(args[0], "update", 1)) {
    return UpdateNode(rest, out, err);
  }
  if (Abbrev(args[0], "ping", 4)) {
    return Ping(out, err);
  }
  err << "invalid keyword: " << args[0] << "\n";
  return 1;
}

}  // namespace canopy::ctl::scontrol
