// scontrol show node's record (show_node.h).
#include "ctl/scontrol/show_node.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "ctl/output/proto_time.h"
#include "ctl/scontrol/record_text.h"

namespace canopy::ctl::scontrol {
namespace {

std::string BaseState(canopy::v1::NodeState state) {
  switch (state) {
    case canopy::v1::NODE_STATE_IDLE:
      return "IDLE";
    case canopy::v1::NODE_STATE_MIXED:
      return "MIXED";
    case canopy::v1::NODE_STATE_ALLOCATED:
      return "ALLOCATED";
    case canopy::v1::NODE_STATE_DOWN:
      return "DOWN";
    default:
      return "UNKNOWN";
  }
}

// The CPU layout as Slurm reports it; a node that carries none gets Slurm's default for a
// NodeName line with only CPUs=: one single-threaded core per socket, one board.
struct Layout {
  int boards, sockets, cores, threads;
};

Layout LayoutOf(const canopy::v1::Node& node) {
  if (node.sockets() > 0) {
    return {node.boards() > 0 ? node.boards() : 1, node.sockets(),
            node.cores_per_socket() > 0 ? node.cores_per_socket() : 1,
            node.threads_per_core() > 0 ? node.threads_per_core() : 1};
  }
  return {1, node.cpus() > 0 ? node.cpus() : 1, 1, 1};
}

std::string Gres(const canopy::v1::Node& node) {
  if (node.gpus_configured() <= 0) {
    return "(null)";
  }
  return node.gpu_type().empty()
             ? absl::StrCat("gpu:", node.gpus_configured())
             : absl::StrCat("gpu:", node.gpu_type(), ":", node.gpus_configured());
}

}  // namespace

std::string NodeStateText(const canopy::v1::Node& node) {
  std::string text = BaseState(node.state());
  // node_state_flag_string walks the flags in a fixed order: ..., DRAIN, ..., NOT_RESPONDING.
  if (node.drain()) {
    absl::StrAppend(&text, "+DRAIN");
  }
  if (node.not_responding()) {
    absl::StrAppend(&text, "+NOT_RESPONDING");
  }
  return text;
}

std::string RenderNode(const canopy::v1::Node& node, absl::TimeZone tz, bool one_liner) {
  const std::string end = one_liner ? " " : "\n   ";
  const Layout layout = LayoutOf(node);
  auto stamp = [&](const google::protobuf::Timestamp& t, const char* unset) {
    return output::FormatTimestampOr(t, tz, unset);
  };

  // Each piece is written as Slurm writes it, trailing spaces included: "CoresPerSocket=1 "
  // followed by the line end gives the two spaces of the one-line form.
  std::string out =
      absl::StrCat("NodeName=", node.name(), " CoresPerSocket=", layout.cores, " ", end);
  absl::StrAppend(&out, "CPUAlloc=", node.alloc_cpus(), " CPUEfctv=", node.cpus(),
                  " CPUTot=", node.cpus(), " CPULoad=N/A", end);
  const std::string features =
      node.features_size() > 0 ? absl::StrJoin(node.features(), ",") : "(null)";
  absl::StrAppend(&out, "AvailableFeatures=", features, end);
  absl::StrAppend(&out, "ActiveFeatures=", features, end);
  absl::StrAppend(&out, "Gres=", Gres(node), end);
  absl::StrAppend(&out, "NodeAddr=", node.name(), " NodeHostName=", node.name(), " ");
  if (!node.agent_version().empty()) {
    absl::StrAppend(&out, "Version=", node.agent_version());
  }
  absl::StrAppend(&out, end);
  absl::StrAppend(&out, "RealMemory=", node.real_memory_mib(),
                  " AllocMem=", node.alloc_memory_mib(), " FreeMem=N/A Sockets=", layout.sockets,
                  " Boards=", layout.boards, end);
  absl::StrAppend(&out, "State=", NodeStateText(node), " ThreadsPerCore=", layout.threads,
                  " TmpDisk=0 Weight=", node.weight(), " Owner=N/A MCS_label=N/A", end);
  if (node.partitions_size() > 0) {
    absl::StrAppend(&out, "Partitions=", absl::StrJoin(node.partitions(), ","), " ", end);
  }
  absl::StrAppend(&out, "BootTime=None SlurmdStartTime=", stamp(node.boot_time(), "None"), end);
  absl::StrAppend(&out, "LastBusyTime=Unknown", end);
  absl::StrAppend(&out, "CfgTRES=",
                  TresList({{"cpu", node.cpus(), absl::StrCat(node.cpus())},
                            {"mem", node.real_memory_mib(), SlurmMem(node.real_memory_mib())},
                            {"billing", node.cpus(), absl::StrCat(node.cpus())}}),
                  end);
  absl::StrAppend(&out, "AllocTRES=",
                  TresList({{"cpu", node.alloc_cpus(), absl::StrCat(node.alloc_cpus())},
                            {"mem", node.alloc_memory_mib(), SlurmMem(node.alloc_memory_mib())}}),
                  end);
  absl::StrAppend(&out, "CapWatts=n/a", end, "CurrentWatts=0 AveWatts=0", end,
                  "ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s");
  if (!node.reason().empty()) {
    // A reason of several lines continues under its first, indented past "Reason=".
    bool first = true;
    for (absl::string_view line : absl::StrSplit(node.reason(), '\n', absl::SkipEmpty())) {
      absl::StrAppend(&out, end, first ? "Reason=" : "       ", line);
      if (first && output::IsSet(node.reason_time())) {
        absl::StrAppend(&out, " [", node.reason_user(), "@", stamp(node.reason_time(), "Unknown"),
                        "]");
      }
      first = false;
    }
  }
  absl::StrAppend(&out, one_liner ? "\n" : "\n\n");
  return out;
}

}  // namespace canopy::ctl::scontrol
