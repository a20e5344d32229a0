#include "ctl/sinfo/render.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/slurm/hostlist.h"
#include "ctl/sinfo/fields.h"
#include "ctl/sinfo/format.h"
#include "ctl/sinfo/rows.h"
#include "ctl/sinfo/sort.h"

namespace canopy::ctl::sinfo {
namespace {

// sinfo's MIN_NODE_FIELD_SIZE and MIN_PART_FIELD_SIZE.
constexpr int kMinSizedWidth = 9;

// _print_str: cut to `width`, then pad to it; width 0 prints the value whole.
std::string Fit(const std::string& value, int width, bool right) {
  if (width <= 0) {
    return value;
  }
  const size_t w = static_cast<size_t>(width);
  if (value.size() >= w) {
    return value.substr(0, w);
  }
  const std::string pad(w - value.size(), ' ');
  return right ? pad + value : value + pad;
}

RowSelection SelectionOf(const SinfoOptions& options) {
  RowSelection s;
  s.node_oriented = options.node_oriented;
  s.list_reasons = options.reasons;
  s.exact = options.exact;
  s.dead = options.dead;
  s.responding = options.responding;
  s.partitions = options.partitions;
  s.states = options.states;
  if (options.nodes_given) {
    // A list sinfo cannot read selects no node (Slurm prints its partitions empty).
    absl::StatusOr<std::vector<std::string>> names = slurm::ExpandHostlist(options.nodes);
    s.node_names = names.ok() ? *std::move(names) : std::vector<std::string>();
  }
  return s;
}

// The width each column prints at: its own, or for the sized default columns the widest value.
std::vector<int> Widths(const SinfoFormat& format, const std::vector<Row>& rows,
                        const FieldContext& context) {
  std::vector<int> widths;
  for (const Column& c : format.columns) {
    int width = c.width;
    const bool sized = (c.field == Field::kNodeList && format.size_node_list) ||
                       (c.field == Field::kPartition && format.size_partition);
    if (sized) {
      width = kMinSizedWidth;
      for (const Row& row : rows) {
        const std::string value = c.field == Field::kPartition ? PartitionCell(row, 0)
                                                               : FieldValue(c.field, row, context);
        width = std::max(width, static_cast<int>(value.size()));
      }
    }
    widths.push_back(width);
  }
  return widths;
}

std::string Line(const SinfoFormat& format, const std::vector<int>& widths, const Row* row,
                 const FieldContext& context) {
  std::string line = format.prefix;
  for (size_t i = 0; i < format.columns.size(); ++i) {
    const Column& c = format.columns[i];
    if (c.field == Field::kInvalid) {
      absl::StrAppend(&line, c.literal, c.suffix);
      continue;
    }
    std::string value;
    if (row == nullptr) {
      value = std::string(FieldHeader(c.field));
    } else if (c.field == Field::kPartition) {
      value = PartitionCell(*row, widths[i]);
    } else {
      value = FieldValue(c.field, *row, context);
    }
    absl::StrAppend(&line, Fit(value, widths[i], c.right), c.suffix);
  }
  return line + "\n";
}

}  // namespace

SinfoOutput RenderSinfo(const SinfoOptions& options,
                        const canopy::v1::ListPartitionsResponse& partitions,
                        const canopy::v1::ListNodesResponse& nodes, const RenderContext& context) {
  SinfoOutput result;
  const std::string blank = options.iterate_seconds > 0 ? "\n" : "";
  if (options.reservations) {
    result.out = absl::StrCat("No reservations in the system\n", blank);
    return result;
  }
  ParsedFormat parsed =
      options.format_long ? ParseLongFormat(options.format) : ParseFormat(options.format);
  for (const std::string& warning : parsed.warnings) {
    absl::StrAppend(&result.err, warning, "\n");
  }
  SinfoFormat& format = parsed.format;
  format.size_partition = options.size_partition;
  format.size_node_list = options.size_node_list;

  std::vector<const canopy::v1::Partition*> parts;
  for (const canopy::v1::Partition& p : partitions.partitions()) {
    parts.push_back(&p);
  }
  std::vector<NodeInfo> infos;
  infos.reserve(nodes.nodes_size());
  for (const canopy::v1::Node& n : nodes.nodes()) {
    infos.push_back(NodeInfo{&n, SlurmNodeState(n, context.planned_nodes.contains(n.name()))});
  }
  std::vector<Row> rows = BuildRows(format, SelectionOf(options), parts, infos);
  SortRows(options.sort, options.node_oriented, rows);

  FieldContext fields{context.tz, context.uid_of};
  const std::vector<int> widths = Widths(format, rows, fields);
  if (!options.no_header) {
    if (options.long_output || options.iterate_seconds > 0) {
      absl::StrAppend(&result.out,
                      absl::FormatTime("%a %b %d %H:%M:%S %Y", context.now, context.tz), "\n");
    }
    absl::StrAppend(&result.out, Line(format, widths, nullptr, fields));
  }
  for (const Row& row : rows) {
    absl::StrAppend(&result.out, Line(format, widths, &row, fields));
  }
  absl::StrAppend(&result.out, blank);
  return result;
}

std::set<std::string> PlannedNodes(const canopy::v1::ListJobsResponse& jobs) {
  std::set<std::string> planned;
  for (const canopy::v1::Job& job : jobs.jobs()) {
    if (job.state() == canopy::v1::JOB_STATE_PENDING) {
      planned.insert(job.expected_nodes().begin(), job.expected_nodes().end());
    }
  }
  return planned;
}

}  // namespace canopy::ctl::sinfo
