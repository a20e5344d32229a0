#include "ctl/sinfo/fields.h"

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/rpc/status_convert.h"
#include "common/slurm/hostlist.h"
#include "common/slurm/time_format.h"

namespace canopy::ctl::sinfo {
namespace {

using canopy::v1::Node;
using canopy::v1::Partition;

// The minimum over the row's nodes, with "+" when they differ (_build_min_max_32_string
// without a range), "0" for a row without nodes.
template <typename Get>
std::string MinPlus(const Row& row, Get get) {
  if (row.nodes.empty()) {
    return "0";
  }
  auto lo = get(*row.nodes.front()->node);
  auto hi = lo;
  for (const NodeInfo* n : row.nodes) {
    lo = std::min(lo, get(*n->node));
    hi = std::max(hi, get(*n->node));
  }
  return lo == hi ? absl::StrCat(lo) : absl::StrCat(lo, "+");
}

std::string Duration(const google::protobuf::Duration& d) {
  return slurm::FormatSlurmDuration(rpc::FromProtoDuration(d));
}

std::string Gres(const Node& n, int64_t count) {
  if (n.gpus_configured() == 0) {
    return "(null)";
  }
  return n.gpu_type().empty() ? absl::StrCat("gpu:", count)
                              : absl::StrCat("gpu:", n.gpu_type(), ":", count);
}

std::string Features(const Node& n) {
  return n.features().empty() ? "(null)" : absl::StrJoin(n.features(), ",");
}

// sinfo's node counts: allocated (ALLOCATED, MIXED or COMPLETING), other (drained or down),
// idle (the rest, UNKNOWN included); and CPUs likewise, a node's allocated CPUs always counting
// as allocated and its others as "other" when it is drained or down.
struct Counts {
  int64_t nodes_alloc = 0, nodes_idle = 0, nodes_other = 0;
  int64_t cpus_alloc = 0, cpus_idle = 0, cpus_other = 0, cpus_total = 0;
};

Counts CountRow(const Row& row) {
  Counts c;
  for (const NodeInfo* info : row.nodes) {
    const uint32_t base = info->state & kStateBase;
    const bool unavailable = (info->state & kFlagDrain) || base == kStateDown;
    if (base == kStateAllocated || base == kStateMixed || (info->state & kFlagCompleting)) {
      ++c.nodes_alloc;
    } else if (unavailable) {
      ++c.nodes_other;
    } else {
      ++c.nodes_idle;
    }
    const int64_t cpus = info->node->cpus();
    const int64_t used = std::min<int64_t>(info->node->alloc_cpus(), cpus);
    c.cpus_alloc += used;
    c.cpus_total += cpus;
    (unavailable ? c.cpus_other : c.cpus_idle) += cpus - used;
  }
  return c;
}

std::string UserName(const Node& n) {
  return n.reason_user().empty() ? "Unknown" : n.reason_user();
}

std::string UserLong(const Node& n, const FieldContext& context) {
  if (n.reason_user().empty()) {
    return "Unknown";
  }
  std::optional<uint32_t> uid;
  if (context.uid_of) {
    uid = context.uid_of(n.reason_user());
  }
  return uid.has_value() ? absl::StrCat(n.reason_user(), "(", *uid, ")") : n.reason_user();
}

std::string PartitionValue(Field field, const Partition& p) {
  switch (field) {
    case Field::kAvail:
      return p.up() ? "up" : "down";
    case Field::kTime:
      return p.has_max_time() ? Duration(p.max_time()) : "infinite";
    case Field::kDefaultTime:
      return p.has_default_time() ? Duration(p.default_time()) : "n/a";
    case Field::kSize:
      // Canopy partitions have no MinNodes: 1, Slurm's default.
      if (p.max_nodes() <= 0) {
        return "1-infinite";
      }
      return p.max_nodes() == 1 ? "1" : absl::StrCat("1-", p.max_nodes());
    case Field::kPriorityTier:
      return absl::StrCat(p.priority_tier());
    case Field::kPriorityJobFactor:
      return absl::StrCat(p.priority_job_factor());
    case Field::kPreemptMode:
      return p.preempt_mode().empty() ? "OFF" : p.preempt_mode();
    case Field::kPartition:
      return absl::StrCat(p.name(), p.is_default() ? "*" : "");
    case Field::kPartitionName:
      return p.name();
    case Field::kGroups:
    case Field::kAllocNodes:
      return "all";
    case Field::kOversubscribe:
      return "NO";
    case Field::kRoot:
      return "no";
    case Field::kMaxCpusPerNode:
      return "UNLIMITED";
    default:
      return "";
  }
}

// The fields of a row without nodes, as Slurm prints its zeroed record.
std::string EmptyRowValue(Field field) {
  switch (field) {
    case Field::kFeatures:
    case Field::kFeaturesAct:
    case Field::kGres:
    case Field::kGresUsed:
    case Field::kComment:
    case Field::kExtra:
      return "(null)";
    case Field::kHostnames:
    case Field::kNodeAddr:
    case Field::kNodeList:
      return "";
    case Field::kStateCompact:
    case Field::kStateLong:
    case Field::kStateComplete:
      return "n/a";
    case Field::kUser:
      return "root";
    case Field::kUserLong:
      return "root(0)";
    case Field::kVersion:
      return "N/A";
    case Field::kSocketCoreThread:
      return "0:0:0";
    case Field::kNodesAi:
      return "0/0";
    case Field::kCpusState:
    case Field::kNodesAiot:
      return "0/0/0/0";
    case Field::kReason:
      return "none";
    case Field::kTimestamp:
      return "Unknown";
    case Field::kCpuLoad:
      return "0.00";
    default:
      return "0";
  }
}

std::string NodeValue(Field field, const Row& row, const FieldContext& context) {
  const Node& first = *row.nodes.front()->node;
  const uint32_t state = row.nodes.front()->state;
  switch (field) {
    case Field::kCpus:
      return MinPlus(row, [](const Node& n) { return n.cpus(); });
    case Field::kMemory:
      return MinPlus(row, [](const Node& n) { return n.real_memory_mib(); });
    case Field::kWeight:
      return MinPlus(row, [](const Node& n) { return n.weight(); });
    case Field::kSockets:
      return MinPlus(row, [](const Node& n) { return LayoutOf(n).sockets; });
    case Field::kCores:
      return MinPlus(row, [](const Node& n) { return LayoutOf(n).cores; });
    case Field::kThreads:
      return MinPlus(row, [](const Node& n) { return LayoutOf(n).threads; });
    case Field::kSocketCoreThread:
      return absl::StrCat(NodeValue(Field::kSockets, row, context), ":",
                          NodeValue(Field::kCores, row, context), ":",
                          NodeValue(Field::kThreads, row, context));
    case Field::kDisk:
    case Field::kPort:
      return "0";  // Canopy has no TmpDisk and no slurmd port
    case Field::kFreeMem:
    case Field::kCpuLoad:
      return "N/A";  // not reported by Canopy's agents
    case Field::kComment:
    case Field::kExtra:
      return "(null)";
    case Field::kFeatures:
    case Field::kFeaturesAct:
      return Features(first);
    case Field::kGres:
      return Gres(first, first.gpus_configured());
    case Field::kGresUsed:
      return Gres(first, first.alloc_gpus());
    case Field::kAllocMem:
      return absl::StrCat(first.alloc_memory_mib());
    case Field::kVersion:
      return first.agent_version().empty() ? "N/A" : first.agent_version();
    case Field::kStateCompact:
      return absl::AsciiStrToLower(NodeStateName(state, /*compact=*/true));
    case Field::kStateLong:
      return absl::AsciiStrToLower(NodeStateName(state, /*compact=*/false));
    case Field::kStateComplete:
      return NodeStateComplete(state);
    case Field::kReason:
      return first.reason().empty() ? "none" : first.reason();
    case Field::kUser:
      return UserName(first);
    case Field::kUserLong:
      return UserLong(first, context);
    case Field::kTimestamp:
      return first.has_reason_time()
                 ? slurm::FormatSlurmTimestamp(rpc::FromProtoTime(first.reason_time()), context.tz)
                 : "Unknown";
    default:
      break;
  }
  const Counts c = CountRow(row);
  switch (field) {
    case Field::kNodes:
      return absl::StrCat(row.nodes.size());
    case Field::kNodesAi:
      return absl::StrCat(c.nodes_alloc, "/", c.nodes_idle);
    case Field::kNodesAiot:
      return absl::StrCat(c.nodes_alloc, "/", c.nodes_idle, "/", c.nodes_other, "/",
                          row.nodes.size());
    case Field::kCpusState:
      return absl::StrCat(c.cpus_alloc, "/", c.cpus_idle, "/", c.cpus_other, "/", c.cpus_total);
    case Field::kNodeList:
    case Field::kHostnames:
    case Field::kNodeAddr: {
      std::vector<std::string> names;
      for (const NodeInfo* n : row.nodes) {
        names.push_back(n->node->name());
      }
      return slurm::CompressHostlist(slurm::SortHostlist(names));
    }
    default:
      return "";
  }
}

}  // namespace

std::string FieldValue(Field field, const Row& row, const FieldContext& context) {
  switch (MatchOf(field)) {
    case FieldMatch::kPartition:
      return row.partition == nullptr ? "" : PartitionValue(field, *row.partition);
    default:
      break;
  }
  if (field == Field::kCluster) {
    return "N/A";  // sinfo names the cluster only in a federation
  }
  if (field == Field::kInvalid) {
    return "";
  }
  if (row.nodes.empty()) {
    return EmptyRowValue(field);
  }
  return NodeValue(field, row, context);
}

std::string PartitionCell(const Row& row, int width) {
  if (row.partition == nullptr) {
    return "";
  }
  const Partition& p = *row.partition;
  if (p.is_default() && width > 0 && static_cast<int>(p.name().size()) + 1 > width) {
    return absl::StrCat(p.name().substr(0, width - 1), "*");
  }
  return PartitionValue(Field::kPartition, p);
}

FieldMatch MatchOf(Field field) {
  switch (field) {
    case Field::kAvail:
    case Field::kTime:
    case Field::kDefaultTime:
    case Field::kSize:
    case Field::kGroups:
    case Field::kOversubscribe:
    case Field::kRoot:
    case Field::kPreemptMode:
    case Field::kPriorityTier:
    case Field::kPriorityJobFactor:
    case Field::kMaxCpusPerNode:
    case Field::kPartition:
    case Field::kPartitionName:
    case Field::kAllocNodes:
      return FieldMatch::kPartition;
    case Field::kFeatures:
    case Field::kFeaturesAct:
    case Field::kGres:
    case Field::kGresUsed:
    case Field::kReason:
    case Field::kTimestamp:
    case Field::kUser:
    case Field::kUserLong:
    case Field::kStateCompact:
    case Field::kStateLong:
    case Field::kStateComplete:
    case Field::kAllocMem:
    case Field::kComment:
    case Field::kExtra:
      return FieldMatch::kNode;
    case Field::kCpus:
    case Field::kCpusState:
    case Field::kSockets:
    case Field::kCores:
    case Field::kThreads:
    case Field::kSocketCoreThread:
    case Field::kDisk:
    case Field::kMemory:
    case Field::kWeight:
    case Field::kCpuLoad:
    case Field::kFreeMem:
    case Field::kPort:
    case Field::kVersion:
      return FieldMatch::kNodeIfExact;
    case Field::kHostnames:
    case Field::kNodeAddr:
      return FieldMatch::kSeparateNodes;
    default:
      return FieldMatch::kNone;
  }
}

std::string NodeKey(Field field, const NodeInfo& node, const FieldContext& context) {
  const Row single{nullptr, 0, {&node}};
  if (field == Field::kCpusState) {  // -e with CPUS(A/I/O/T) compares the CPU count
    return absl::StrCat(node.node->cpus());
  }
  return FieldValue(field, single, context);
}

std::string PartitionKey(Field field, const canopy::v1::Partition& partition) {
  return PartitionValue(field, partition);
}

CpuLayout LayoutOf(const canopy::v1::Node& node) {
  if (node.sockets() == 0 && node.cores_per_socket() == 0 && node.threads_per_core() == 0) {
    return CpuLayout{node.cpus(), 1, 1};
  }
  return CpuLayout{node.sockets(), node.cores_per_socket(), node.threads_per_core()};
}

}  // namespace canopy::ctl::sinfo
