#include "ctl/sinfo/rows.h"

#include <algorithm>
#include <set>

#include "absl/container/flat_hash_set.h"
#include "ctl/sinfo/fields.h"

namespace canopy::ctl::sinfo {
namespace {

using canopy::v1::Partition;

// Which fields of the format decide grouping.
struct MatchFields {
  bool partition_flag = false;          // P or R: rows per partition
  std::vector<Field> partition_fields;  // other partition settings shown
  std::vector<Field> node_fields;       // node values that must be equal
  bool separate_nodes = false;          // n or o shown
};

MatchFields MatchFieldsOf(const SinfoFormat& format, bool exact) {
  MatchFields m;
  for (const Column& c : format.columns) {
    switch (MatchOf(c.field)) {
      case FieldMatch::kPartition:
        if (c.field == Field::kPartition || c.field == Field::kPartitionName) {
          m.partition_flag = true;
        } else if (c.field != Field::kAllocNodes) {  // a constant in Canopy, and no flag in Slurm
          m.partition_fields.push_back(c.field);
        }
        break;
      case FieldMatch::kNodeIfExact:
        if (exact) {
          m.node_fields.push_back(c.field);
        }
        break;
      case FieldMatch::kNode:
        m.node_fields.push_back(c.field);
        break;
      case FieldMatch::kSeparateNodes:
        m.separate_nodes = true;
        break;
      case FieldMatch::kNone:
        break;
    }
  }
  return m;
}

bool Selected(const NodeInfo& info, const RowSelection& s,
              const absl::flat_hash_set<std::string>* names) {
  if (names != nullptr && !names->contains(info.node->name())) {
    return false;
  }
  const bool no_respond = info.state & kFlagNoRespond;
  if ((s.dead && !no_respond) || (s.responding && no_respond)) {
    return false;
  }
  if (s.states.has_value()) {
    const uint32_t base = info.state & kStateBase;
    const bool allocated = info.node->alloc_cpus() > 0 || info.node->alloc_gpus() > 0 ||
                           base == kStateAllocated || base == kStateMixed;
    return StateFilterMatches(*s.states, info.state, allocated);
  }
  return true;
}

class Grouper {
 public:
  Grouper(const MatchFields& match, const RowSelection& selection)
      : match_(match), selection_(selection) {}

  void PreCreate(const Partition* p, int index) {
    rows_.push_back(Row{p, index, {}});
    members_.emplace_back();
    keys_.emplace_back();
    ++precreated_;
  }

  void Add(const Partition* p, int index, const NodeInfo& node) {
    // With -N (or host names shown) a node never joins a row that has nodes, so only the rows
    // made empty for their partition, which come first, need a look: this keeps -N linear.
    const bool alone = selection_.node_oriented || match_.separate_nodes;
    const size_t searched = alone ? precreated_ : rows_.size();
    std::vector<std::string> keys;
    for (size_t i = 0; i < searched; ++i) {
      Row& row = rows_[i];
      if (!PartitionMatches(row, p)) {
        continue;
      }
      if (!row.nodes.empty()) {
        if (alone) {
          continue;
        }
        if (keys.empty() && !match_.node_fields.empty()) {
          keys = KeysOf(node);
        }
        if (keys != keys_[i]) {
          continue;
        }
      } else {
        keys_[i] = KeysOf(node);
      }
      // A node already in the row (another of its partitions, with -R or no partition
      // field) is counted once.
      if (members_[i].insert(&node).second) {
        row.nodes.push_back(&node);
      }
      return;
    }
    rows_.push_back(Row{p, index, {&node}});
    members_.push_back({&node});
    keys_.push_back(alone ? std::vector<std::string>() : KeysOf(node));
  }

  std::vector<Row> Take() { return std::move(rows_); }

 private:
  bool PartitionMatches(const Row& row, const Partition* p) const {
    if (selection_.list_reasons || row.partition == p) {
      return true;
    }
    if (row.partition == nullptr || p == nullptr || match_.partition_flag) {
      return false;
    }
    for (Field f : match_.partition_fields) {
      if (PartitionKey(f, *row.partition) != PartitionKey(f, *p)) {
        return false;
      }
    }
    return true;
  }

  // The values of the node-matched fields: a node joins a row whose first node has the same.
  std::vector<std::string> KeysOf(const NodeInfo& node) const {
    std::vector<std::string> keys;
    keys.reserve(match_.node_fields.size());
    for (Field f : match_.node_fields) {
      keys.push_back(NodeKey(f, node, context_));
    }
    return keys;
  }

  const MatchFields& match_;
  const RowSelection& selection_;
  // Keys compare the controller's values; the time zone and uids print the same for equal
  // values, so the defaults do.
  const FieldContext context_;
  std::vector<Row> rows_;
  // Per row: its nodes as a set, and the keys of its first node.
  std::vector<absl::flat_hash_set<const NodeInfo*>> members_;
  std::vector<std::vector<std::string>> keys_;
  size_t precreated_ = 0;
};

}  // namespace

std::vector<Row> BuildRows(const SinfoFormat& format, const RowSelection& selection,
                           const std::vector<const canopy::v1::Partition*>& partitions,
                           const std::vector<NodeInfo>& nodes) {
  const MatchFields match = MatchFieldsOf(format, selection.exact);
  absl::flat_hash_set<std::string> names;
  if (selection.node_names.has_value()) {
    names.insert(selection.node_names->begin(), selection.node_names->end());
  }
  auto wanted = [&selection](const Partition& p) {
    return selection.partitions.empty() ||
           std::find(selection.partitions.begin(), selection.partitions.end(), p.name()) !=
               selection.partitions.end();
  };

  Grouper grouper(match, selection);
  // "By default every partition is shown, even if no nodes" (sinfo.c).
  if (!selection.node_oriented && match.partition_flag) {
    for (size_t i = 0; i < partitions.size(); ++i) {
      if (wanted(*partitions[i])) {
        grouper.PreCreate(partitions[i], static_cast<int>(i));
      }
    }
  }
  for (size_t i = 0; i < partitions.size(); ++i) {
    const Partition& p = *partitions[i];
    if (!wanted(p)) {
      continue;
    }
    const std::set<std::string> members(p.nodes().begin(), p.nodes().end());
    for (const NodeInfo& node : nodes) {
      if (members.contains(node.node->name()) &&
          Selected(node, selection, selection.node_names.has_value() ? &names : nullptr)) {
        grouper.Add(&p, static_cast<int>(i), node);
      }
    }
  }
  return grouper.Take();
}

}  // namespace canopy::ctl::sinfo
