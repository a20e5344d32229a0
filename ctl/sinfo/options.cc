#include "ctl/sinfo/options.h"

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/slurm/getopt.h"
#include "ctl/sinfo/format.h"

namespace canopy::ctl::sinfo {
namespace {

enum class Opt {
  kAll,
  kDead,
  kExact,
  kIgnored,
  kHelp,
  kHide,
  kIterate,
  kLong,
  kClusters,
  kNodes,
  kNoConvert,
  kNoHeader,
  kNodeOriented,
  kFormat,
  kLongFormat,
  kPartition,
  kResponding,
  kReasons,
  kSummarize,
  kSort,
  kStates,
  kReservation,
  kUsage,
  kVerbose,
  kVersion,
  kJson,
  kYaml,
};

using slurm::ArgKind;

// Slurm 22.05's table (sinfo/opts.c), every option, so that abbreviations are ambiguous exactly
// where Slurm's are ("--no": --nodes, --noconvert, --noheader).
constexpr slurm::OptionSpec kOptions[] = {
    {"all", 'a', ArgKind::kNone, Opt::kAll},
    {"dead", 'd', ArgKind::kNone, Opt::kDead},
    {"exact", 'e', ArgKind::kNone, Opt::kExact},
    {"federation", '\0', ArgKind::kNone, Opt::kIgnored},
    {"help", '\0', ArgKind::kNone, Opt::kHelp},
    {"hide", '\0', ArgKind::kNone, Opt::kHide},
    {"iterate", 'i', ArgKind::kRequired, Opt::kIterate},
    {"local", '\0', ArgKind::kNone, Opt::kIgnored},
    {"long", 'l', ArgKind::kNone, Opt::kLong},
    {"cluster", 'M', ArgKind::kRequired, Opt::kClusters},
    {"clusters", 'M', ArgKind::kRequired, Opt::kClusters},
    {"nodes", 'n', ArgKind::kRequired, Opt::kNodes},
    {"noconvert", '\0', ArgKind::kNone, Opt::kNoConvert},
    {"noheader", 'h', ArgKind::kNone, Opt::kNoHeader},
    {"Node", 'N', ArgKind::kNone, Opt::kNodeOriented},
    {"format", 'o', ArgKind::kRequired, Opt::kFormat},
    {"Format", 'O', ArgKind::kRequired, Opt::kLongFormat},
    {"partition", 'p', ArgKind::kRequired, Opt::kPartition},
    {"responding", 'r', ArgKind::kNone, Opt::kResponding},
    {"list-reasons", 'R', ArgKind::kNone, Opt::kReasons},
    {"summarize", 's', ArgKind::kNone, Opt::kSummarize},
    {"sort", 'S', ArgKind::kRequired, Opt::kSort},
    {"states", 't', ArgKind::kRequired, Opt::kStates},
    {"reservation", 'T', ArgKind::kNone, Opt::kReservation},
    {"usage", '\0', ArgKind::kNone, Opt::kUsage},
    {"verbose", 'v', ArgKind::kNone, Opt::kVerbose},
    {"version", 'V', ArgKind::kNone, Opt::kVersion},
    {"json", '\0', ArgKind::kNone, Opt::kJson},
    {"yaml", '\0', ArgKind::kNone, Opt::kYaml},
};
constexpr slurm::OptionTable kTable{"sinfo", slurm::Ordering::kPermute, kOptions};

std::vector<std::string> SplitPartitions(absl::string_view text) {
  return absl::StrSplit(text, ',', absl::SkipEmpty());
}

// Prefixes each line with "error: ", as Slurm's error() prints them.
absl::Status Error(absl::string_view message) {
  std::vector<std::string> lines;
  for (absl::string_view line : absl::StrSplit(message, '\n')) {
    lines.push_back(absl::StrCat("error: ", line));
  }
  return absl::InvalidArgumentError(absl::StrJoin(lines, "\n"));
}

// Marks an option that ends parsing successfully (--help, --usage, -V): sinfo exits at once.
absl::Status Stop() { return absl::CancelledError("info"); }

}  // namespace

absl::StatusOr<SinfoOptions> ParseSinfoArgs(const std::vector<std::string>& args,
                                            const SinfoEnvironment& env) {
  SinfoOptions o;
  if (env.sinfo_all) {
    o.all = true;
  }
  if (env.sinfo_partition.has_value()) {
    o.partition = *env.sinfo_partition;
    o.partitions = SplitPartitions(o.partition);
  }
  if (env.sinfo_all && env.sinfo_partition.has_value()) {
    return Error(
        "Conflicting options, SINFO_ALL and SINFO_PARTITION, specified. Please choose one or "
        "the other.");
  }
  if (env.sinfo_sort.has_value()) {
    o.sort = *env.sinfo_sort;
  }
  bool opt_a = false;
  bool opt_p = false;
  absl::StatusOr<std::vector<std::string>> operands = slurm::ParseCommandLine(
      kTable, args,
      [&](const slurm::OptionSpec& option, std::optional<absl::string_view> value) -> absl::Status {
        const std::string v(value.value_or(""));
        switch (option.IdAs<Opt>()) {
          case Opt::kAll:
            opt_a = true;
            o.all = true;
            o.partition.clear();
            o.partitions.clear();
            break;
          case Opt::kDead:
            o.dead = true;
            break;
          case Opt::kExact:
            o.exact = true;
            break;
          case Opt::kHelp:
            o.info = SinfoInfo::kHelp;
            return Stop();
          case Opt::kUsage:
            o.info = SinfoInfo::kUsage;
            return Stop();
          case Opt::kVersion:
            o.info = SinfoInfo::kVersion;
            return Stop();
          case Opt::kHide:
            o.all = false;
            break;
          case Opt::kIterate:
            // atoi(): leading digits count ("2x" is 2); nothing positive is an error.
            o.iterate_seconds = std::atoi(v.c_str());
            if (o.iterate_seconds <= 0) {
              return Error(absl::StrCat("Error: invalid entry for --iterate=", v));
            }
            break;
          case Opt::kLong:
            o.long_output = true;
            break;
          case Opt::kNodes:
            o.nodes = v;
            o.nodes_given = true;
            break;
          case Opt::kNoConvert:
            o.noconvert = true;
            break;
          case Opt::kNoHeader:
            o.no_header = true;
            break;
          case Opt::kNodeOriented:
            o.node_oriented = true;
            break;
          case Opt::kFormat:
          case Opt::kLongFormat:
            o.format = v;
            o.format_given = true;
            o.format_long = option.IdAs<Opt>() == Opt::kLongFormat;
            break;
          case Opt::kPartition:
            opt_p = true;
            o.partition = v;
            o.partitions = SplitPartitions(v);
            break;
          case Opt::kResponding:
            o.responding = true;
            break;
          case Opt::kReasons:
            o.reasons = true;
            break;
          case Opt::kSummarize:
            o.summarize = true;
            break;
          case Opt::kSort:
            o.sort = v;
            break;
          case Opt::kStates: {
            absl::StatusOr<StateFilter> states = ParseStateFilter(v);
            if (!states.ok()) {
              return Error(states.status().message());
            }
            o.states = *std::move(states);
            break;
          }
          case Opt::kReservation:
            o.reservations = true;
            break;
          case Opt::kJson:
          case Opt::kYaml:
            return Error(
                absl::StrCat("--", option.long_name, " is not supported by Canopy's sinfo"));
          case Opt::kClusters:  // one cluster: the controller's
          case Opt::kVerbose:
          case Opt::kIgnored:
            break;
        }
        return absl::OkStatus();
      });
  if (!operands.ok()) {
    if (absl::IsCancelled(operands.status()) && o.info != SinfoInfo::kNone) {
      return o;
    }
    return operands.status();
  }
  if (o.long_output && o.format_given) {
    return absl::InvalidArgumentError(
        "fatal: Options -o(--format) and -l(--long) are mutually exclusive. Please remove one "
        "and retry.");
  }
  if (opt_a && opt_p) {
    return Error("Conflicting options, -a and -p, specified. Please choose one or the other.");
  }
  if (!o.format_given) {
    // sinfo's order: -s, then -N, then -R, then SINFO_FORMAT, then the plain default.
    // The defaults size PARTITION (and with -N, NODELIST) to their widest value.
    o.format_long = true;
    if (o.summarize) {
      o.format = kSummarizeFormat;
      o.size_partition = true;
    } else if (o.node_oriented) {
      o.format = o.long_output ? kNodeLongFormat : kNodeFormat;
      o.size_partition = o.size_node_list = true;
    } else if (o.reasons) {
      o.format = o.long_output ? kReasonLongFormat : kReasonFormat;
    } else if (env.sinfo_format.has_value()) {
      o.format = *env.sinfo_format;
      o.format_long = false;
    } else {
      o.format = o.long_output ? kDefaultLongFormat : kDefaultFormat;
      o.size_partition = true;
    }
  }
  if (o.reasons && !o.states.has_value()) {
    o.states = *ParseStateFilter("down,fail,drain");
  }
  return o;
}

absl::StatusOr<SinfoOptions> ParseSinfoArgs(const std::vector<std::string>& args) {
  return ParseSinfoArgs(args, SinfoEnvironment{});
}

}  // namespace canopy::ctl::sinfo
