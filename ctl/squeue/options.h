// squeue's command line, by getopt_long's rules with squeue's table (common/slurm/getopt.h):
// options and operands mix. Pure; thread-safe.
//
// Served: -h/--noheader, -l/--long, -r/--array, -o/--format, -O/--Format (long_format.h; the
// later of -o and -O wins), -j/--jobs[=LIST], --start, -u/--user(s), -p/--partitions,
// -t/--states, and unique prefixes of those long names
// ("--partition"). As in squeue, -j takes its list attached ("-j5", "--jobs=5") or, given
// bare, from the first operand ("-j 5"); any other operand is an error.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "canopy/v1/types.pb.h"
#include "common/slurm/format_spec.h"

namespace canopy::ctl::squeue {

struct SqueueOptions {
  bool no_header = false;
  bool long_format = false;    // -l: STATE and TIME_LIMIT columns, and a date line first
  bool expand_arrays = false;  // -r: one row per array task
  std::string format;          // -o; empty = the default (or -l's) format
  std::vector<slurm::FormatItem> format_long;  // -O, as format items; empty = -o's format
  std::vector<std::string> jobs;               // -j: "8", "5" (a whole array), "5_1"
  std::vector<std::string> users;              // -u
  std::vector<std::string> partitions;         // -p
  std::vector<canopy::v1::JobState> states;    // -t; empty = default
  bool all_states = false;                     // -t all
  // --start: pending jobs only, with their expected start and nodes, earliest first.
  bool start = false;
};

// InvalidArgument with squeue's wording (printed after "squeue: ") for a bad option or value:
// getopt's texts with the "Try \"squeue --help\"" line, "error: Invalid job id: X",
// "error: Invalid job state specified: X" (and the valid ones), "error: Unrecognized option: X"
// for a stray operand.
absl::StatusOr<SqueueOptions> ParseSqueueArgs(const std::vector<std::string>& args);

}  // namespace canopy::ctl::squeue
