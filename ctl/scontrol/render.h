// What scontrol prints from canopyd's answers, in Slurm 22.05's formats
// (tests/data/slurm-reference/ cli-outputs-22.05.txt). Pure; thread-safe.
#pragma once

#include <optional>
#include <string>

#include "canopy/v1/controller.pb.h"

namespace canopy::ctl::scontrol {

// `scontrol show topology [NODE]`: one line per switch, "SwitchName=S Level=L LinkSpeed=1
// Nodes=... Switches=...", each with its whole subtree of nodes. With `node`, only the
// switches above it, from its leaf up; nothing if no switch holds it.
std::string RenderTopology(const canopy::v1::GetTopologyResponse& topology,
                           const std::optional<std::string>& node);

}  // namespace canopy::ctl::scontrol
