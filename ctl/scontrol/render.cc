#include "ctl/scontrol/render.h"

#include <algorithm>
#include <functional>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/slurm/hostlist.h"

namespace canopy::ctl::scontrol {

std::string RenderTopology(const canopy::v1::GetTopologyResponse& topology,
                           const std::optional<std::string>& node) {
  std::map<std::string, const canopy::v1::Switch*> by_name;
  for (const auto& s : topology.switches()) {
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
  if (!node.has_value()) {
    for (const auto& s : topology.switches()) {
      shown.push_back(&s);
    }
  } else {
    // The node's leaf, then each parent up to the top.
    for (const auto& s : topology.switches()) {
      if (std::find(s.nodes().begin(), s.nodes().end(), *node) != s.nodes().end()) {
        for (const canopy::v1::Switch* sw = &s; sw != nullptr;) {
          shown.push_back(sw);
          auto parent = by_name.find(sw->parent());
          sw = parent == by_name.end() ? nullptr : parent->second;
        }
        break;
      }
    }
  }
  std::string out;
  for (const canopy::v1::Switch* s : shown) {
    std::vector<std::string> nodes;
    collect(*s, nodes);
    absl::StrAppend(&out, "SwitchName=", s->name(), " Level=", s->level(), " LinkSpeed=1");
    if (!nodes.empty()) {
      absl::StrAppend(&out, " Nodes=", slurm::CompressHostlist(nodes));
    }
    if (s->child_switches_size() > 0) {
      std::vector<std::string> children(s->child_switches().begin(), s->child_switches().end());
      absl::StrAppend(&out, " Switches=", slurm::CompressHostlist(children));
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

}  // namespace canopy::ctl::scontrol
