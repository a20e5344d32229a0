// Reader for Slurm's topology.conf (topology/tree and topology/block forms).
//
// Grammar as in Slurm's topology.conf(5): one declaration per line, `Key=Value` pairs separated by
// blanks, keys case-insensitive, `#` starts a comment, a trailing backslash continues the line,
// values may be double-quoted. Lines:
//   SwitchName=<name> Nodes=<hostlist> | Switches=<hostlist> [LinkSpeed=<n>]   (tree)
//   BlockName=<name> Nodes=<hostlist>                                        (block)
//   BlockSizes=<n>[,<n>...]                                                  (block)
// LinkSpeed is parsed by Slurm but unused, so we accept and drop it. Both forms may appear in one
// file (a Canopy extension: blocks inside leaf switches).
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/slurm/hostlist.h"
#include "scheduler/topology/readers/topology_reader.h"

namespace canopy::topology {
namespace {

struct Pair {
  std::string key;  // lower-cased
  std::string key_as_written;
  std::string value;
};

struct Line {
  int number = 0;  // in the origin file
  std::string text;
};

// Joins continuation lines and strips comments; keeps the line number of each declaration's
// first physical line.
std::vector<Line> LogicalLines(absl::string_view text, int first_line) {
  std::vector<Line> out;
  std::string pending;
  int pending_line = 0;
  int number = first_line;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    std::string line(absl::StripSuffix(raw, "\r"));
    if (size_t hash = line.find('#'); hash != std::string::npos) {
      line.resize(hash);
    }
    absl::string_view trimmed = absl::StripTrailingAsciiWhitespace(line);
    bool continues = absl::EndsWith(trimmed, "\\");
    if (continues) {
      trimmed.remove_suffix(1);
    }
    if (pending.empty()) {
      pending_line = number;
    }
    absl::StrAppend(&pending, pending.empty() ? "" : " ", trimmed);
    if (!continues) {
      if (!absl::StripAsciiWhitespace(pending).empty()) {
        out.push_back({pending_line, pending});
      }
      pending.clear();
    }
    ++number;
  }
  if (!absl::StripAsciiWhitespace(pending).empty()) {
    out.push_back({pending_line, pending});
  }
  return out;
}

// Splits "A=b C=\"d e\"" into pairs. InvalidArgument for a token without '=' or an unclosed quote.
absl::StatusOr<std::vector<Pair>> SplitPairs(absl::string_view line) {
  std::vector<Pair> pairs;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && absl::ascii_isspace(static_cast<unsigned char>(line[i]))) {
      ++i;
    }
    if (i >= line.size()) {
      break;
    }
    size_t start = i;
    while (i < line.size() && line[i] != '=' &&
           !absl::ascii_isspace(static_cast<unsigned char>(line[i]))) {
      ++i;
    }
    if (i >= line.size() || line[i] != '=') {
      return absl::InvalidArgumentError(
          absl::StrCat("expected Key=Value, got '", line.substr(start, i - start), "'"));
    }
    Pair p;
    p.key_as_written = std::string(line.substr(start, i - start));
    p.key = absl::AsciiStrToLower(p.key_as_written);
    ++i;  // '='
    if (i < line.size() && line[i] == '"') {
      size_t close = line.find('"', i + 1);
      if (close == absl::string_view::npos) {
        return absl::InvalidArgumentError(
            absl::StrCat(p.key_as_written, ": unclosed double quote"));
      }
      p.value = std::string(line.substr(i + 1, close - i - 1));
      i = close + 1;
    } else {
      size_t vstart = i;
      while (i < line.size() && !absl::ascii_isspace(static_cast<unsigned char>(line[i]))) {
        ++i;
      }
      p.value = std::string(line.substr(vstart, i - vstart));
    }
    pairs.push_back(std::move(p));
  }
  return pairs;
}

class SlurmTopologyConfReader final : public TopologyReader {
 public:
  absl::string_view name() const override { return "topology/tree"; }

  absl::Status Read(const config::TopologySource& source, TopologyBuilder& builder) const override {
    for (const Line& line : LogicalLines(source.text, source.first_line)) {
      const std::string where = absl::StrCat(source.origin, ":", line.number);
      auto error = [&](absl::string_view message) {
        return absl::InvalidArgumentError(absl::StrCat(where, ": ", message));
      };
      absl::StatusOr<std::vector<Pair>> pairs = SplitPairs(line.text);
      if (!pairs.ok()) {
        return error(pairs.status().message());
      }
      const std::string& kind = pairs->front().key;
      // Which keys each kind of line may carry; anything else is a typo worth reporting.
      std::vector<absl::string_view> allowed;
      if (kind == "switchname") {
        allowed = {"switchname", "nodes", "switches", "linkspeed"};
      } else if (kind == "blockname") {
        allowed = {"blockname", "nodes"};
      } else if (kind == "blocksizes") {
        allowed = {"blocksizes"};
      } else {
        return error(absl::StrCat("unknown key '", pairs->front().key_as_written,
                                  "' (a line starts with SwitchName=, BlockName= or BlockSizes=)"));
      }
      std::string nodes_expr, switches_expr, name_value, sizes_value;
      bool has_nodes = false, has_switches = false;
      std::vector<std::string> seen;
      for (const Pair& p : *pairs) {
        if (std::find(allowed.begin(), allowed.end(), p.key) == allowed.end()) {
          return error(absl::StrCat("unknown key '", p.key_as_written, "' on a ",
                                    pairs->front().key_as_written, " line"));
        }
        if (std::find(seen.begin(), seen.end(), p.key) != seen.end()) {
          return error(absl::StrCat("key '", p.key_as_written, "' given twice"));
        }
        seen.push_back(p.key);
        if (p.key == "switchname" || p.key == "blockname") {
          name_value = p.value;
        } else if (p.key == "nodes") {
          nodes_expr = p.value;
          has_nodes = true;
        } else if (p.key == "switches") {
          switches_expr = p.value;
          has_switches = true;
        } else if (p.key == "blocksizes") {
          sizes_value = p.value;
        }  // linkspeed: parsed by Slurm, unused by it and by us.
      }

      auto expand = [&](absl::string_view key,
                        const std::string& expr) -> absl::StatusOr<std::vector<std::string>> {
        if (expr.empty()) {
          return std::vector<std::string>();
        }
        absl::StatusOr<std::vector<std::string>> names = slurm::ExpandHostlist(expr);
        if (!names.ok()) {
          return error(absl::StrCat(key, ": ", names.status().message()));
        }
        return names;
      };

      if (kind == "blocksizes") {
        std::vector<int> sizes;
        for (absl::string_view part : absl::StrSplit(sizes_value, ',')) {
          int v = 0;
          if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(part), &v)) {
            return error(
                absl::StrCat("BlockSizes: expected a comma-separated list of integers, "
                             "got '",
                             sizes_value, "'"));
          }
          sizes.push_back(v);
        }
        builder.SetBlockSizes(std::move(sizes), where);
        continue;
      }
      if (name_value.empty()) {
        return error(absl::StrCat(pairs->front().key_as_written, " needs a value"));
      }
      if (has_nodes && nodes_expr.empty()) {
        return error("Nodes= is empty");
      }
      if (has_switches && switches_expr.empty()) {
        return error("Switches= is empty");
      }
      absl::StatusOr<std::vector<std::string>> nodes = expand("Nodes", nodes_expr);
      if (!nodes.ok()) {
        return nodes.status();
      }
      if (kind == "blockname") {
        if (!has_nodes) {
          return error(absl::StrCat("block '", name_value, "' needs Nodes="));
        }
        builder.AddBlock(name_value, *std::move(nodes), where);
        continue;
      }
      absl::StatusOr<std::vector<std::string>> switches = expand("Switches", switches_expr);
      if (!switches.ok()) {
        return switches.status();
      }
      builder.AddSwitch(name_value, *std::move(nodes), *std::move(switches), where);
    }
    return absl::OkStatus();
  }
};

}  // namespace

std::unique_ptr<TopologyReader> MakeSlurmTopologyConfReader() {
  return std::make_unique<SlurmTopologyConfReader>();
}

}  // namespace canopy::topology
