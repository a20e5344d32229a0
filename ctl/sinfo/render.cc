#include "ctl/sinfo/render.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/rpc/status_convert.h"
#include "common/slurm/format_spec.h"
#include "common/slurm/hostlist.h"
#include "common/slurm/time_format.h"

namespace canopy::ctl::sinfo {
namespace {

// Default formats, from sinfo(1).
constexpr char kDefaultFormat[] = "%#P %.5a %.10l %.6D %.6t %N";
constexpr char kNodeFormat[] = "%#N %.6D %#P %6t";
// sinfo(1) shows two spaces before %N here, Slurm 22.05 prints one.
constexpr char kSummarizeFormat[] = "%#P %.5a %.10l %.16F %N";
constexpr char kReasonFormat[] = "%20E %9u %19H %N";

std::string Header(char field) {
  switch (field) {
    case 'P':
      return "PARTITION";
    case 'a':
      return "AVAIL";
    case 'l':
      return "TIMELIMIT";
    case 'D':
      return "NODES";
    case 't':
    case 'T':
      return "STATE";
    case 'N':
      return "NODELIST";
    case 'c':
      return "CPUS";
    case 'm':
      return "MEMORY";
    case 'G':
      return "GRES";
    case 'F':
      return "NODES(A/I/O/T)";
    case 'E':
      return "REASON";
    case 'u':
      return "USER";
    case 'H':
      return "TIMESTAMP";
    default:
      return std::string(1, field);
  }
}

std::string TimeLimit(const canopy::v1::Partition& p) {
  if (!p.has_max_time()) {
    return "infinite";
  }
  return slurm::FormatSlurmDuration(rpc::FromProtoDuration(p.max_time()));
}

std::string Gres(const canopy::v1::Node& n) {
  if (n.gpus_configured() == 0) {
    return "(null)";
  }
  return n.gpu_type().empty() ? absl::StrCat("gpu:", n.gpus_configured())
                              : absl::StrCat("gpu:", n.gpu_type(), ":", n.gpus_configured());
}

// A row: some nodes (of one partition, or none with -R) that print alike.
struct Row {
  const canopy::v1::Partition* partition = nullptr;
  std::vector<const canopy::v1::Node*> nodes;
};

std::string Value(char field, const Row& row, absl::TimeZone tz) {
  const canopy::v1::Node& first = *row.nodes.front();
  switch (field) {
    case 'P':
      return row.partition == nullptr
                 ? ""
                 : absl::StrCat(row.partition->name(), row.partition->is_default() ? "*" : "");
    case 'a':
      return row.partition == nullptr ? "" : (row.partition->up() ? "up" : "down");
    case 'l':
      return row.partition == nullptr ? "" : TimeLimit(*row.partition);
    case 'D':
      return absl::StrCat(row.nodes.size());
    case 't':
      return first.slurm_state();
    case 'T':
      return first.slurm_state_long();
    case 'N': {
      std::vector<std::string> names;
      for (const auto* n : row.nodes) {
        names.push_back(n->name());
      }
      return slurm::CompressHostlist(names);
    }
    case 'c':
      return absl::StrCat(first.cpus());
    case 'm':
      return absl::StrCat(first.real_memory_mib());
    case 'G':
      return Gres(first);
    case 'F': {
      int a = 0, i = 0, o = 0;
      for (const auto* n : row.nodes) {
        const std::string& s = n->slurm_state();
        if (absl::StartsWith(s, "alloc") || absl::StartsWith(s, "mix") || s == "drng") {
          ++a;
        } else if (s == "idle") {
          ++i;
        } else {
          ++o;
        }
      }
      return absl::StrCat(a, "/", i, "/", o, "/", row.nodes.size());
    }
    case 'E':
      return first.reason().empty() ? "none" : first.reason();
    case 'u':
      return first.reason_user().empty() ? "Unknown" : first.reason_user();
    case 'H':
      return first.has_reason_time()
                 ? slurm::FormatSlurmTimestamp(rpc::FromProtoTime(first.reason_time()), tz)
                 : "Unknown";
    default:
      return "";
  }
}

// Rows group nodes that print the same in every field but the per-group ones (N, D, F).
std::vector<Row> GroupRows(const std::vector<slurm::FormatItem>& items, const SinfoOptions& options,
                           const std::vector<const canopy::v1::Partition*>& partitions,
                           const std::vector<const canopy::v1::Node*>& nodes, absl::TimeZone tz) {
  std::vector<Row> rows;
  auto key_of = [&](const Row& single) {
    std::string key;
    for (const slurm::FormatItem& it : items) {
      if (it.field != 0 && it.field != 'N' && it.field != 'D' && it.field != 'F') {
        absl::StrAppend(&key, Value(it.field, single, tz), "\x1f");
      }
    }
    return key;
  };
  auto group = [&](const canopy::v1::Partition* p,
                   const std::vector<const canopy::v1::Node*>& members) {
    std::map<std::string, size_t> index;
    for (const canopy::v1::Node* n : members) {
      Row single{p, {n}};
      if (options.node_oriented) {
        rows.push_back(single);
        continue;
      }
      const std::string key = options.summarize ? std::string() : key_of(single);
      auto [it, inserted] = index.emplace(key, rows.size());
      if (inserted) {
        rows.push_back(single);
      } else {
        rows[it->second].nodes.push_back(n);
      }
    }
  };
  if (options.reasons) {
    std::vector<const canopy::v1::Node*> with_reason;
    for (const auto* n : nodes) {
      if (!n->reason().empty() && (n->drain() || n->state() == canopy::v1::NODE_STATE_DOWN)) {
        with_reason.push_back(n);
      }
    }
    group(nullptr, with_reason);
    return rows;
  }
  std::map<std::string, const canopy::v1::Node*> by_name;
  for (const auto* n : nodes) {
    by_name[n->name()] = n;
  }
  for (const canopy::v1::Partition* p : partitions) {
    std::vector<const canopy::v1::Node*> members;
    for (const std::string& name : p->nodes()) {
      if (auto it = by_name.find(name); it != by_name.end()) {
        members.push_back(it->second);
      }
    }
    group(p, members);
  }
  return rows;
}

std::string Fit(const std::string& value, const slurm::FormatItem& item, size_t width) {
  if (width == 0) {
    return value;
  }
  if (value.size() >= width) {
    return value.substr(0, width);
  }
  const std::string pad(width - value.size(), ' ');
  return item.right ? pad + value : value + pad;
}

}  // namespace

std::string RenderSinfo(const SinfoOptions& options,
                        const canopy::v1::ListPartitionsResponse& partitions,
                        const canopy::v1::ListNodesResponse& nodes, absl::TimeZone tz) {
  std::string format = options.format;
  if (format.empty()) {
    format = options.reasons         ? kReasonFormat
             : options.summarize     ? kSummarizeFormat
             : options.node_oriented ? kNodeFormat
                                     : kDefaultFormat;
  }
  const std::vector<slurm::FormatItem> items = slurm::ParseFormatSpec(format);
  std::set<std::string> wanted_parts;
  for (absl::string_view p : absl::StrSplit(options.partition, ',', absl::SkipEmpty())) {
    wanted_parts.insert(std::string(p));
  }
  std::vector<const canopy::v1::Partition*> parts;
  for (const auto& p : partitions.partitions()) {
    if (wanted_parts.empty() || wanted_parts.contains(p.name())) {
      parts.push_back(&p);
    }
  }
  std::vector<const canopy::v1::Node*> node_list;
  for (const auto& n : nodes.nodes()) {
    node_list.push_back(&n);
  }
  const std::vector<Row> rows = GroupRows(items, options, parts, node_list, tz);

  std::vector<std::vector<std::string>> cells(rows.size());
  std::vector<size_t> widths(items.size(), 0);
  for (size_t c = 0; c < items.size(); ++c) {
    const slurm::FormatItem& it = items[c];
    if (it.field == 0) {
      continue;
    }
    widths[c] = it.width;
    if (it.automatic) {
      widths[c] = std::max<size_t>(it.width, Header(it.field).size());
    }
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t c = 0; c < items.size(); ++c) {
      const std::string v =
          items[c].field == 0 ? items[c].literal : Value(items[c].field, rows[r], tz);
      if (items[c].automatic) {
        widths[c] = std::max(widths[c], v.size());
      }
      cells[r].push_back(v);
    }
  }
  std::string out;
  auto emit = [&](auto value_at) {
    std::string line;
    for (size_t c = 0; c < items.size(); ++c) {
      line += items[c].field == 0 ? items[c].literal : Fit(value_at(c), items[c], widths[c]);
    }
    absl::StrAppend(&out, line, "\n");
  };
  if (!options.no_header) {
    emit([&](size_t c) { return Header(items[c].field); });
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    emit([&](size_t c) { return cells[r][c]; });
  }
  return out;
}

}  // namespace canopy::ctl::sinfo
