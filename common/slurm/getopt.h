// The option engine of Canopy's Slurm commands: GNU getopt_long (glibc 2.36) as Slurm 22.05's
// sbatch, srun, squeue, sinfo and scancel call it, driven by a table per command. Every getopt
// rule and error text lives here once; a command only lists its options and applies values.
// Pure (no I/O, no environment); thread-safe.
//
// What it reproduces:
//   "--name=value", "--name value" (a required value is the next argument even if it starts
//   with '-'), "-N 2", "-N2", bundles of short options ("-HN2"); optional values only as
//   "--name=value" or attached ("-kVALUE"); "--" ends the options; any unique prefix of a long
//   name is that option ("--part" for "--partition"); prefixes shared by options that differ
//   in id or argument kind are ambiguous, by glibc's rule (the first match and each later one
//   that differs from it are listed).
//   Orderings: kRequireOrder (getopt's leading '+', sbatch/srun/salloc: the first non-option
//   and everything after it are operands) and kPermute (GNU's default, squeue/sinfo/scancel:
//   options and operands mix; operands keep their order, those after "--" last).
//
// Errors are InvalidArgument whose message is getopt's line, then the command's hint, exactly
// as the commands print them after their "CMD: " prefix (the hint line is printed bare):
//   unrecognized option '--bogus=1'          invalid option -- 'Z'
//   option '--time' requires an argument     option requires an argument -- 'N'
//   option '--parsable' doesn't allow an argument
//   option '--n' is ambiguous; possibilities: '--nodes' '--ntasks'
//   Try "sbatch --help" for more information
//
// Not reproduced: POSIXLY_CORRECT (a process-environment switch), getopt_long_only, "-W foo".
// Abbreviations are resolved against the command's table, which lists only the options
// Canopy serves, so a prefix that Slurm finds ambiguous with an option we lack is accepted.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace canopy::slurm {

enum class ArgKind { kNone, kRequired, kOptional };

// One entry of a command's table: a `struct option` and its letter in getopt's optstring.
// `id` is what the command switches on, normally its own enum class; entries with the same id
// and argument kind are aliases ("--user"/"--users"), never ambiguous with each other.
struct OptionSpec {
  template <typename Id>
  constexpr OptionSpec(absl::string_view long_name, char short_name, ArgKind arg, Id id)
      : long_name(long_name), short_name(short_name), arg(arg), id(static_cast<int>(id)) {}

  // The command's id back in its own type: `switch (option.IdAs<Opt>())`.
  template <typename Id>
  constexpr Id IdAs() const {
    return static_cast<Id>(id);
  }

  absl::string_view long_name;  // without "--"; empty for a short-only option
  char short_name;              // '\0' for a long-only option
  ArgKind arg;
  int id;
};

enum class Ordering {
  kRequireOrder,  // stop at the first non-option (getopt's "+")
  kPermute,       // options anywhere; operands collected in order
};

// A command's options. Tables are constexpr data beside the command that owns them, e.g.
//   constexpr OptionSpec kOptions[] = {{"noheader", 'h', ArgKind::kNone, Opt::kNoHeader}, ...};
//   constexpr OptionTable kTable{"squeue", Ordering::kPermute, kOptions};
struct OptionTable {
  absl::string_view command;  // names the hint: Try "COMMAND --help" for more information
  Ordering ordering;
  absl::Span<const OptionSpec> options;
};

// Called once per option found, in command-line order. `value` is nullopt for kNone options
// and for kOptional ones given without a value; it points into the arguments and is valid for
// the call only. A non-OK return stops parsing and is returned as is, so a bad value of an
// earlier option is reported before a getopt error later on the line, as Slurm's commands do.
using OptionHandler = absl::FunctionRef<absl::Status(const OptionSpec& option,
                                                     std::optional<absl::string_view> value)>;

// Parses `args` (without argv[0]) by `table`, calling `handle` for each option. Returns the
// operands: with kRequireOrder the first non-option argument and all after it; with kPermute
// every non-option argument. "-" alone is an operand; "--" is dropped and everything after it
// is an operand. Errors: getopt's (see the header comment) or the first one `handle` returns.
absl::StatusOr<std::vector<std::string>> ParseCommandLine(const OptionTable& table,
                                                          absl::Span<const std::string> args,
                                                          OptionHandler handle);

// --help, --usage and -V/--version are answered as soon as getopt reaches them, whatever
// follows on the line (a bad option included), as Slurm's commands exit there. A handler
// returns StopAtInfoRequest() for them; the caller then finds StoppedAtInfoRequest() true of
// ParseCommandLine's status and answers the request it recorded.
inline absl::Status StopAtInfoRequest() { return absl::CancelledError("info request"); }
inline bool StoppedAtInfoRequest(const absl::Status& status) {
  return absl::IsCancelled(status) && status.message() == "info request";
}

// Long options a command learns at run time: those of the site's SPANK plugins (plugins/spank),
// which sbatch, salloc and srun accept as their own.
struct ExtraOption {
  std::string name;  // without "--"
  ArgKind arg = ArgKind::kNone;
};
// The ids ExtraOptions get in a table made by WithExtraOptions: kExtraOptionId + index.
inline constexpr int kExtraOptionId = 1 << 20;
// `base` followed by `extra` (whose names must outlive the result).
std::vector<OptionSpec> WithExtraOptions(absl::Span<const OptionSpec> base,
                                         absl::Span<const ExtraOption> extra);

// The error for a getopt-style usage failure of `command`: `line`, then the "Try ..." hint.
// For front ends whose own checks Slurm reports the same way.
absl::Status UsageError(absl::string_view command, absl::string_view line);

}  // namespace canopy::slurm
