// The words of sacctmgr's add, show, modify and delete after the entity: conditions ("where",
// names, Accounts=, Format=, ...) and settings ("set", Fairshare=, Description=, limits), by
// sacctmgr's rules for each entity. Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ctl/sacctmgr/command.h"

namespace canopy::ctl::sacctmgr {

// Reads words[first..] into `command` (whose verb and entity are set). InvalidArgument with
// sacctmgr's lines (" Unknown condition: X", " Unknown option: X", "sacctmgr: error: Invalid
// value for FairShare (X)", ...).
absl::Status ReadSpecs(const std::vector<std::string>& words, size_t first, Command& command);

}  // namespace canopy::ctl::sacctmgr
