// sprio's command line, by getopt_long's rules with sprio's table (common/slurm/getopt.h):
// options and operands mix. Pure; thread-safe.
//
// Served: -h/--noheader, -j/--jobs[=LIST], -l/--long, -n/--norm, -o/--format=FMT,
// -p/--partition=LIST, -u/--user(s)=LIST, -w/--weights, --help, --usage, -V/--version. As in sprio,
// -j takes its list attached ("-j5", "--jobs=5") or, given bare, from the first operand ("-j 5");
// any other operand is "Unrecognized option" (sprio then prints its usage and exits 1).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace canopy::ctl::sprio {

struct SprioOptions {
  bool no_header = false;               // -h
  bool long_format = false;             // -l
  bool normalized = false;              // -n: factors as fractions of their weight
  bool weights = false;                 // -w: the weights row instead of jobs
  bool jobs_given = false;              // a job list was given (sprio's params.jobs)
  std::vector<uint32_t> jobs;           // -j
  std::vector<std::string> users;       // -u
  std::vector<std::string> partitions;  // -p
  std::string format;                   // -o; empty = the default (see render.h)
  bool help = false;                    // --help
  bool usage = false;                   // --usage
  bool version = false;                 // -V/--version
};

// InvalidArgument with sprio's wording: getopt's texts with the "Try \"sprio --help\"" hint;
// "error: Invalid job id: X"; "error: Unrecognized option: X" for a stray operand (the caller
// then prints SprioUsage() to stdout, as sprio does).
absl::StatusOr<SprioOptions> ParseSprioArgs(const std::vector<std::string>& args);

// True for the stray-operand error, after which sprio prints its usage.
bool IsUnrecognizedOperand(const absl::Status& status);

// sprio --usage (also printed after "Unrecognized option"), as Slurm 22.05 prints it.
std::string SprioUsage();
// sprio --help.
std::string SprioHelp();

}  // namespace canopy::ctl::sprio
