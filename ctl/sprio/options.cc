#include "ctl/sprio/options.h"

#include <optional>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/slurm/getopt.h"

namespace canopy::ctl::sprio {
namespace {

enum class Opt {
  kNoHeader,
  kJobs,
  kLong,
  kNorm,
  kFormat,
  kPartition,
  kUsers,
  kWeights,
  kHelp,
  kUsage,
  kVersion
};

using slurm::ArgKind;

// Slurm 22.05's table (sprio/opts.c) for the options Canopy serves.
constexpr slurm::OptionSpec kOptions[] = {
    {"noheader", 'h', ArgKind::kNone, Opt::kNoHeader},
    {"jobs", 'j', ArgKind::kOptional, Opt::kJobs},
    {"long", 'l', ArgKind::kNone, Opt::kLong},
    {"norm", 'n', ArgKind::kNone, Opt::kNorm},
    {"format", 'o', ArgKind::kRequired, Opt::kFormat},
    {"partition", 'p', ArgKind::kRequired, Opt::kPartition},
    {"user", 'u', ArgKind::kRequired, Opt::kUsers},
    {"users", '\0', ArgKind::kRequired, Opt::kUsers},
    {"weights", 'w', ArgKind::kNone, Opt::kWeights},
    {"help", '\0', ArgKind::kNone, Opt::kHelp},
    {"usage", '\0', ArgKind::kNone, Opt::kUsage},
    {"version", 'V', ArgKind::kNone, Opt::kVersion},
};
constexpr slurm::OptionTable kTable{"sprio", slurm::Ordering::kPermute, kOptions};

constexpr absl::string_view kUnrecognized = "error: Unrecognized option: ";

std::vector<std::string> SplitList(absl::string_view v) {
  return std::vector<std::string>(absl::StrSplit(v, ',', absl::SkipEmpty()));
}

// sprio reads each id with strtol: the leading number ("5" of "5_2") must be positive.
absl::Status SetJobs(absl::string_view value, SprioOptions& o) {
  o.jobs_given = true;
  for (const std::string& id : SplitList(value)) {
    const size_t end = id.find_first_not_of("0123456789");
    uint32_t n = 0;
    if (!absl::SimpleAtoi(id.substr(0, end), &n) || n == 0) {
      return absl::InvalidArgumentError(absl::StrCat("error: Invalid job id: ", id));
    }
    o.jobs.push_back(n);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SprioOptions> ParseSprioArgs(const std::vector<std::string>& args) {
  SprioOptions o;
  bool jobs_flag = false;  // -j without a list: the first operand is the list
  absl::StatusOr<std::vector<std::string>> operands = slurm::ParseCommandLine(
      kTable, args, [&](const slurm::OptionSpec& option, std::optional<absl::string_view> value) {
        const absl::string_view v = value.value_or("");
        switch (option.IdAs<Opt>()) {
          case Opt::kNoHeader:
            o.no_header = true;
            return absl::OkStatus();
          case Opt::kJobs:
            jobs_flag = true;
            return value.has_value() ? SetJobs(v, o) : absl::OkStatus();
          case Opt::kLong:
            o.long_format = true;
            return absl::OkStatus();
          case Opt::kNorm:
            o.normalized = true;
            return absl::OkStatus();
          case Opt::kFormat:
            o.format = std::string(v);
            return absl::OkStatus();
          case Opt::kPartition:
            o.partitions = SplitList(v);
            return absl::OkStatus();
          case Opt::kUsers:
            o.users = SplitList(v);
            return absl::OkStatus();
          case Opt::kWeights:
            o.weights = true;
            return absl::OkStatus();
          case Opt::kHelp:
            o.help = true;
            return slurm::StopAtInfoRequest();
          case Opt::kUsage:
            o.usage = true;
            return slurm::StopAtInfoRequest();
          case Opt::kVersion:
            o.version = true;
            return slurm::StopAtInfoRequest();
        }
        return absl::InternalError("unhandled sprio option");
      });
  if (!operands.ok()) {
    if (slurm::StoppedAtInfoRequest(operands.status())) {
      return o;
    }
    return operands.status();
  }
  size_t next = 0;
  if (jobs_flag && next < operands->size()) {
    if (absl::Status s = SetJobs((*operands)[next++], o); !s.ok()) {
      return s;
    }
  }
  if (next < operands->size()) {
    return absl::InvalidArgumentError(absl::StrCat(kUnrecognized, (*operands)[next]));
  }
  return o;
}

bool IsUnrecognizedOperand(const absl::Status& status) {
  return absl::StartsWith(status.message(), kUnrecognized);
}

std::string SprioUsage() {
  return "Usage: sprio [-j jid[s]] [-u user_name[s]] [-o format] [-p partitions]\n"
         "   [--federation] [--local] [--sibling] [--usage] [-hlnvVw]\n";
}

std::string SprioHelp() {
  return "Usage: sprio [OPTIONS]\n"
         "      --federation                display jobs in federation if a member of one\n"
         "  -h, --noheader                  no headers on output\n"
         "  -j, --jobs                      comma separated list of jobs\n"
         "                                  to view, default is all\n"
         "      --local                     display jobs on local cluster only\n"
         "  -l, --long                      long report\n"
         "  -M, --cluster=cluster_name      cluster to issue commands to.  Default is\n"
         "                                  current cluster.  cluster with no name will\n"
         "                                  reset to default.\n"
         "                                  NOTE: SlurmDBD must be up.\n"
         "  -n, --norm                      display normalized values\n"
         "  -o, --format=format             format specification\n"
         "      --sibling                   display job records separately for each federation "
         "cluster\n"
         "  -p, --partition=partition_name  comma separated list of partitions\n"
         "  -u, --user=user_name            comma separated list of users to view\n"
         "  -v, --verbose                   verbosity level\n"
         "  -V, --version                   output version information and exit\n"
         "  -w, --weights                   show the weights for each priority factor\n"
         "\n"
         "Help options:\n"
         "  --help                          show this help message\n"
         "  --usage                         display a brief summary of sprio options\n";
}

}  // namespace canopy::ctl::sprio
