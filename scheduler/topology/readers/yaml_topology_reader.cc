// Reader for the `topology:` section of canopy.yaml (schema in docs/formats/topology.md):
//
//   switches:
//     - {name: leaf1, nodes: "gpu[001-008]"}       # nodes: hostlist string or list of them
//     - {name: spine1, switches: "leaf[1-2]"}      # switches: hostlist string or list of them
//   blocks:
//     - {name: rack1, nodes: "gb[001-018]"}
//   block_sizes: [18, 36]
//
// The text may be the section's body or a document with a single `topology:` key. yaml-cpp
// throws on malformed input; every exception is caught here and becomes InvalidArgument naming
// the origin and line (TopologySource::first_line + the 0-based line yaml-cpp reports).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/slurm/hostlist.h"
#include "scheduler/topology/readers/topology_reader.h"
#include "yaml-cpp/yaml.h"

namespace canopy::topology {
namespace {

class YamlTopologyReader final : public TopologyReader {
 public:
  absl::string_view name() const override { return "canopy/yaml"; }

  absl::Status Read(const config::TopologySource& source, TopologyBuilder& builder) const override {
    try {
      return ReadOrThrow(source, builder);
    } catch (const YAML::Exception& e) {
      int line = e.mark.is_null() ? source.first_line : source.first_line + e.mark.line;
      return absl::InvalidArgumentError(
          absl::StrCat(source.origin, ":", line, ": invalid YAML: ", e.msg));
    } catch (const std::exception& e) {
      // yaml-cpp can surface std exceptions (bad_alloc, conversions); never let one escape.
      return absl::InvalidArgumentError(
          absl::StrCat(source.origin, ": cannot read the topology: ", e.what()));
    }
  }

 private:
  std::string Where(const config::TopologySource& source, const YAML::Node& node) const {
    const YAML::Mark mark = node.Mark();
    int line = mark.is_null() ? source.first_line : source.first_line + mark.line;
    return absl::StrCat(source.origin, ":", line);
  }

  absl::Status Error(const config::TopologySource& source, const YAML::Node& node,
                     absl::string_view message) const {
    return absl::InvalidArgumentError(absl::StrCat(Where(source, node), ": ", message));
  }

  // A hostlist string ("gpu[1-4]") or a sequence of them, expanded in order.
  absl::StatusOr<std::vector<std::string>> Names(const config::TopologySource& source,
                                                 const YAML::Node& node,
                                                 absl::string_view key) const {
    std::vector<std::string> out;
    auto add = [&](const YAML::Node& item) -> absl::Status {
      if (!item.IsScalar()) {
        return Error(source, item, absl::StrCat(key, ": expected a hostlist string"));
      }
      absl::StatusOr<std::vector<std::string>> names = slurm::ExpandHostlist(item.Scalar());
      if (!names.ok()) {
        return Error(source, item, absl::StrCat(key, ": ", names.status().message()));
      }
      out.insert(out.end(), names->begin(), names->end());
      return absl::OkStatus();
    };
    if (node.IsSequence()) {
      for (const YAML::Node& item : node) {
        if (absl::Status s = add(item); !s.ok()) {
          return s;
        }
      }
    } else if (absl::Status s = add(node); !s.ok()) {
      return s;
    }
    if (out.empty()) {
      return Error(source, node, absl::StrCat(key, " is empty"));
    }
    return out;
  }

  absl::Status ReadOrThrow(const config::TopologySource& source, TopologyBuilder& builder) const {
    YAML::Node root = YAML::Load(source.text);
    if (root.IsNull()) {
      return absl::OkStatus();  // empty section: a flat cluster
    }
    if (root.IsMap() && root.size() == 1 && root["topology"]) {
      root = root["topology"];
    }
    if (root.IsNull()) {
      return absl::OkStatus();
    }
    if (!root.IsMap()) {
      return Error(source, root,
                   "the topology section must be a mapping with switches, blocks "
                   "and block_sizes");
    }
    for (const auto& kv : root) {
      const std::string key = kv.first.Scalar();
      if (key != "switches" && key != "blocks" && key != "block_sizes") {
        return Error(source, kv.first,
                     absl::StrCat("unknown key '", key,
                                  "' in topology (expected switches, blocks, block_sizes)"));
      }
    }
    if (const YAML::Node switches = root["switches"]; switches && !switches.IsNull()) {
      if (!switches.IsSequence()) {
        return Error(source, switches, "switches: expected a list");
      }
      for (const YAML::Node& sw : switches) {
        if (absl::Status s = ReadEntry(source, sw, /*is_switch=*/true, builder); !s.ok()) {
          return s;
        }
      }
    }
    if (const YAML::Node blocks = root["blocks"]; blocks && !blocks.IsNull()) {
      if (!blocks.IsSequence()) {
        return Error(source, blocks, "blocks: expected a list");
      }
      for (const YAML::Node& b : blocks) {
        if (absl::Status s = ReadEntry(source, b, /*is_switch=*/false, builder); !s.ok()) {
          return s;
        }
      }
    }
    if (const YAML::Node sizes = root["block_sizes"]; sizes && !sizes.IsNull()) {
      if (!sizes.IsSequence()) {
        return Error(source, sizes, "block_sizes: expected a list of integers");
      }
      std::vector<int> values;
      for (const YAML::Node& v : sizes) {
        int value = 0;
        if (!v.IsScalar() || !YAML::convert<int>::decode(v, value)) {
          return Error(source, v, "block_sizes: expected an integer");
        }
        values.push_back(value);
      }
      builder.SetBlockSizes(std::move(values), Where(source, sizes));
    }
    return absl::OkStatus();
  }

  absl::Status ReadEntry(const config::TopologySource& source, const YAML::Node& entry,
                         bool is_switch, TopologyBuilder& builder) const {
    const absl::string_view what = is_switch ? "switch" : "block";
    if (!entry.IsMap()) {
      return Error(source, entry, absl::StrCat(what, ": expected a mapping with name and nodes"));
    }
    std::string name;
    std::vector<std::string> nodes, switches;
    for (const auto& kv : entry) {
      const std::string key = kv.first.Scalar();
      if (key == "name") {
        if (!kv.second.IsScalar() || kv.second.Scalar().empty()) {
          return Error(source, kv.second, absl::StrCat(what, ": name must be a non-empty string"));
        }
        name = kv.second.Scalar();
      } else if (key == "nodes") {
        absl::StatusOr<std::vector<std::string>> v = Names(source, kv.second, "nodes");
        if (!v.ok()) {
          return v.status();
        }
        nodes = *std::move(v);
      } else if (key == "switches" && is_switch) {
        absl::StatusOr<std::vector<std::string>> v = Names(source, kv.second, "switches");
        if (!v.ok()) {
          return v.status();
        }
        switches = *std::move(v);
      } else if (key == "link_speed" && is_switch) {
        // Accepted for parity with topology.conf's LinkSpeed; unused, like in Slurm.
      } else {
        return Error(source, kv.first, absl::StrCat("unknown key '", key, "' in a ", what));
      }
    }
    if (name.empty()) {
      return Error(source, entry, absl::StrCat(what, " without a name"));
    }
    if (is_switch) {
      builder.AddSwitch(std::move(name), std::move(nodes), std::move(switches),
                        Where(source, entry));
    } else {
      if (nodes.empty()) {
        return Error(source, entry, absl::StrCat("block '", name, "' needs nodes"));
      }
      builder.AddBlock(std::move(name), std::move(nodes), Where(source, entry));
    }
    return absl::OkStatus();
  }
};

}  // namespace

std::unique_ptr<TopologyReader> MakeYamlTopologyReader() {
  return std::make_unique<YamlTopologyReader>();
}

}  // namespace canopy::topology
