// sshare's command line, by getopt_long's rules with sshare's table (common/slurm/getopt.h):
// options and operands mix, and operands are ignored, as sshare ignores them. Pure; thread-safe.
//
// Served: -a/--all, -A/--accounts=LIST, -e/--helpformat, -h and -n/--noheader, -l/--long,
// -o/--format=LIST (repeatable, joined with ','), -p/--parsable, -P/--parsable2,
// -u/--users=LIST ("-1" = all users), -U/--Users, --help/--usage, -V/--version.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ctl/output/print_fields.h"

namespace canopy::ctl::sshare {

struct SshareOptions {
  bool all_users = false;             // -a, or -u -1
  std::vector<std::string> accounts;  // -A
  std::vector<std::string> users;     // -u; empty and !all_users = the caller only
  bool long_format = false;           // -l
  bool no_header = false;             // -n / -h
  bool users_only = false;            // -U
  std::string format;                 // -o: "Account,User%12"; empty = the default columns
  output::FieldsMode mode = output::FieldsMode::kTable;
  bool help = false;         // --help / --usage: print the usage and stop
  bool help_format = false;  // -e: print the field names and stop
  bool version = false;      // -V/--version
};

// InvalidArgument with getopt's text and sshare's "Try \"sshare --help\"" hint.
absl::StatusOr<SshareOptions> ParseSshareArgs(const std::vector<std::string>& args);

// sshare --help (and --usage), as Slurm 22.05 prints it.
std::string SshareUsage();

}  // namespace canopy::ctl::sshare
