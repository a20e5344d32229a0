// sinfo's command line and environment, by getopt_long's rules with Slurm 22.05's sinfo table
// (common/slurm/getopt.h). Pure: the environment comes in as SinfoEnvironment. Thread-safe.
//
// Served: -a/--all, -d/--dead, -e/--exact, -h/--noheader, -i/--iterate, -l/--long,
// -n/--nodes, --noconvert, -N/--Node, -o/--format, -O/--Format, -p/--partition,
// -r/--responding, -R/--list-reasons, -s/--summarize, -S/--sort, -t/--states,
// -T/--reservation (Canopy has no reservations), --help, --usage, -V/--version; SINFO_ALL,
// SINFO_FORMAT, SINFO_PARTITION and SINFO_SORT. Accepted and ignored, since Canopy runs one
// cluster with no hidden partitions: --federation, --local, --hide, -M/--clusters, -v/--verbose.
// --json and --yaml are refused (Canopy's sinfo does not write them). Operands are ignored, as
// Slurm 22.05's sinfo ignores them. --noconvert changes nothing: sinfo prints memory in MB
// either way.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ctl/sinfo/node_state.h"

namespace canopy::ctl::sinfo {

// The environment variables sinfo reads.
struct SinfoEnvironment {
  bool sinfo_all = false;                      // SINFO_ALL is set
  std::optional<std::string> sinfo_format;     // SINFO_FORMAT
  std::optional<std::string> sinfo_partition;  // SINFO_PARTITION
  std::optional<std::string> sinfo_sort;       // SINFO_SORT
};

enum class SinfoInfo { kNone, kHelp, kUsage, kVersion };

struct SinfoOptions {
  SinfoInfo info = SinfoInfo::kNone;  // --help, --usage, -V: print it and exit 0
  bool all = false;                   // -a / SINFO_ALL
  bool dead = false;                  // -d
  bool exact = false;                 // -e
  bool no_header = false;             // -h
  int iterate_seconds = 0;            // -i; 0 = once
  bool long_output = false;           // -l
  bool noconvert = false;             // --noconvert
  bool node_oriented = false;         // -N
  bool reasons = false;               // -R
  bool responding = false;            // -r
  bool summarize = false;             // -s
  bool reservations = false;          // -T
  std::string nodes;                  // -n hostlist; empty = all
  bool nodes_given = false;
  std::vector<std::string> partitions;  // -p / SINFO_PARTITION (comma-separated); empty = all
  std::string partition;                // the same, as given
  // The format in effect: -o/-O, or else SINFO_FORMAT / the default of the mode (FormatOf).
  std::string format;
  bool format_given = false;  // -o or -O was given
  bool format_long = false;   // `format` is in -O's language
  // A default format: PARTITION (with -N also NODELIST) as wide as its widest value, at least 9.
  bool size_partition = false;
  bool size_node_list = false;
  std::optional<StateFilter> states;  // -t, or -R's "down,fail,drain"
  std::string sort;                   // -S / SINFO_SORT; empty = the default
};

// The options, or InvalidArgument whose message is what sinfo prints, line by line, each after
// "sinfo: " except getopt's "Try \"sinfo --help\" ..." hint (client::PrintCliError), exit 1:
//   getopt's errors ("unrecognized option '--bogus'", "invalid option -- 'F'", ambiguity);
//   "error: Error: invalid entry for --iterate=0";
//   "error: Bad state string: \"x\"" and "error: valid states: ...";
//   "error: Conflicting options, -a and -p, specified. Please choose one or the other."
//   (and the SINFO_ALL / SINFO_PARTITION version);
//   "fatal: Options -o(--format) and -l(--long) are mutually exclusive. Please remove one and
//   retry.";
//   "error: --json is not supported by Canopy's sinfo" (and --yaml).
absl::StatusOr<SinfoOptions> ParseSinfoArgs(const std::vector<std::string>& args,
                                            const SinfoEnvironment& env);
// Without environment variables.
absl::StatusOr<SinfoOptions> ParseSinfoArgs(const std::vector<std::string>& args);

}  // namespace canopy::ctl::sinfo
