// sinfo's command line, by getopt_long's rules with sinfo's table (common/slurm/getopt.h).
// Pure; thread-safe.
//
// Served: -h/--noheader, -N/--Node, -R/--list-reasons, -s/--summarize, -p/--partition,
// -n/--nodes, -o/--format, and unique prefixes of those long names ("--sum").
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace canopy::ctl::sinfo {

struct SinfoOptions {
  bool no_header = false;
  bool node_oriented = false;  // -N
  bool reasons = false;        // -R
  bool summarize = false;      // -s
  std::string partition;       // -p (comma-separated)
  std::string nodes;           // -n hostlist
  std::string format;          // -o; empty = the mode's default
};

// InvalidArgument with sinfo's wording (printed after "sinfo: "; the "Try \"sinfo --help\""
// line bare) for an unknown option, a missing or unexpected value, or an operand (which
// Canopy reports as "unrecognized option 'X'"; Slurm 22.05 ignores it).
absl::StatusOr<SinfoOptions> ParseSinfoArgs(const std::vector<std::string>& args);

}  // namespace canopy::ctl::sinfo
