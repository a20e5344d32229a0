// What sinfo prints for --help, --usage and -V/--version. Pure; thread-safe.
#pragma once

#include <string>

#include "ctl/sinfo/options.h"

namespace canopy::ctl::sinfo {

// The text for `info` ("" for kNone). sinfo prints it to stdout and exits 0.
std::string SinfoInfoText(SinfoInfo info);

}  // namespace canopy::ctl::sinfo
