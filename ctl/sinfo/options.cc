#include "ctl/sinfo/options.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/slurm/getopt.h"

namespace canopy::ctl::sinfo {
namespace {

enum class Opt { kNodes, kNoHeader, kNodeOriented, kFormat, kPartition, kReasons, kSummarize };

using slurm::ArgKind;

// Slurm 22.05's long names (sinfo/opts.c), in its order, for the options Canopy serves.
constexpr slurm::OptionSpec kOptions[] = {
    {"nodes", 'n', ArgKind::kRequired, Opt::kNodes},
    {"noheader", 'h', ArgKind::kNone, Opt::kNoHeader},
    {"Node", 'N', ArgKind::kNone, Opt::kNodeOriented},
    {"format", 'o', ArgKind::kRequired, Opt::kFormat},
    {"partition", 'p', ArgKind::kRequired, Opt::kPartition},
    {"list-reasons", 'R', ArgKind::kNone, Opt::kReasons},
    {"summarize", 's', ArgKind::kNone, Opt::kSummarize},
};
constexpr slurm::OptionTable kTable{"sinfo", slurm::Ordering::kPermute, kOptions};

}  // namespace

absl::StatusOr<SinfoOptions> ParseSinfoArgs(const std::vector<std::string>& args) {
  SinfoOptions o;
  absl::StatusOr<std::vector<std::string>> operands = slurm::ParseCommandLine(
      kTable, args, [&o](const slurm::OptionSpec& option, std::optional<absl::string_view> value) {
        const std::string v(value.value_or(""));
        switch (option.IdAs<Opt>()) {
          case Opt::kNodes:
            o.nodes = v;
            break;
          case Opt::kNoHeader:
            o.no_header = true;
            break;
          case Opt::kNodeOriented:
            o.node_oriented = true;
            break;
          case Opt::kFormat:
            o.format = v;
            break;
          case Opt::kPartition:
            o.partition = v;
            break;
          case Opt::kReasons:
            o.reasons = true;
            break;
          case Opt::kSummarize:
            o.summarize = true;
            break;
        }
        return absl::OkStatus();
      });
  if (!operands.ok()) {
    return operands.status();
  }
  if (!operands->empty()) {
    return slurm::UsageError("sinfo",
                             absl::StrCat("unrecognized option '", operands->front(), "'"));
  }
  return o;
}

}  // namespace canopy::ctl::sinfo
