#include "ctl/squeue/options.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/slurm/getopt.h"
#include "ctl/output/job_format.h"
#include "ctl/squeue/long_format.h"

namespace canopy::ctl::squeue {
namespace {

enum class Opt {
  kNoHeader,
  kLong,
  kArray,
  kFormat,
  kFormatLong,
  kJobs,
  kUsers,
  kPartitions,
  kStates,
  kStart
};

using slurm::ArgKind;

// Slurm 22.05's long names (squeue/opts.c), for the options Canopy serves.
constexpr slurm::OptionSpec kOptions[] = {
    {"array", 'r', ArgKind::kNone, Opt::kArray},
    {"Format", 'O', ArgKind::kRequired, Opt::kFormatLong},
    {"format", 'o', ArgKind::kRequired, Opt::kFormat},
    {"jobs", 'j', ArgKind::kOptional, Opt::kJobs},
    {"long", 'l', ArgKind::kNone, Opt::kLong},
    {"noheader", 'h', ArgKind::kNone, Opt::kNoHeader},
    {"partitions", 'p', ArgKind::kRequired, Opt::kPartitions},
    {"start", '\0', ArgKind::kNone, Opt::kStart},
    {"states", 't', ArgKind::kRequired, Opt::kStates},
    {"user", 'u', ArgKind::kRequired, Opt::kUsers},
    {"users", '\0', ArgKind::kRequired, Opt::kUsers},
};
constexpr slurm::OptionTable kTable{"squeue", slurm::Ordering::kPermute, kOptions};

std::vector<std::string> SplitList(absl::string_view v) {
  return std::vector<std::string>(absl::StrSplit(v, ',', absl::SkipEmpty()));
}

absl::Status SetJobs(absl::string_view value, SqueueOptions& o) {
  for (const std::string& id : SplitList(value)) {
    uint32_t n = 0;
    if (!absl::SimpleAtoi(id.substr(0, id.find('_')), &n)) {
      return absl::InvalidArgumentError(absl::StrCat("error: Invalid job id: ", id));
    }
    o.jobs.push_back(id);
  }
  return absl::OkStatus();
}

absl::Status SetStates(absl::string_view value, SqueueOptions& o) {
  for (const std::string& s : SplitList(value)) {
    if (absl::EqualsIgnoreCase(s, "all")) {
      o.all_states = true;
      continue;
    }
    std::optional<canopy::v1::JobState> st = output::ParseJobState(s);
    if (!st) {
      return absl::InvalidArgumentError(absl::StrCat(
          "error: Invalid job state specified: ", s,
          "\nerror: Valid job states include: PENDING,RUNNING,SUSPENDED,COMPLETED,CANCELLED,"
          "FAILED,TIMEOUT,NODE_FAIL,PREEMPTED,BOOT_FAIL,DEADLINE,OUT_OF_MEMORY,COMPLETING,"
          "CONFIGURING,RESIZING,RESV_DEL_HOLD,REQUEUED,REQUEUE_FED,REQUEUE_HOLD,REVOKED,"
          "SIGNALING,SPECIAL_EXIT,STAGE_OUT,STOPPED"));
    }
    o.states.push_back(*st);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SqueueOptions> ParseSqueueArgs(const std::vector<std::string>& args) {
  SqueueOptions o;
  bool jobs_flag = false;  // -j given without a list: the first operand is the list
  absl::StatusOr<std::vector<std::string>> operands = slurm::ParseCommandLine(
      kTable, args, [&](const slurm::OptionSpec& option, std::optional<absl::string_view> value) {
        const absl::string_view v = value.value_or("");
        switch (option.IdAs<Opt>()) {
          case Opt::kNoHeader:
            o.no_header = true;
            return absl::OkStatus();
          case Opt::kLong:
            o.long_format = true;
            return absl::OkStatus();
          case Opt::kArray:
            o.expand_arrays = true;
            return absl::OkStatus();
          case Opt::kFormat:
            o.format = std::string(v);
            o.format_long.clear();
            return absl::OkStatus();
          case Opt::kFormatLong: {
            absl::StatusOr<std::vector<slurm::FormatItem>> items = ParseLongFormat(v);
            if (!items.ok()) {
              return items.status();
            }
            o.format_long = *std::move(items);
            o.format.clear();
            return absl::OkStatus();
          }
          case Opt::kJobs:
            jobs_flag = true;
            return value.has_value() ? SetJobs(v, o) : absl::OkStatus();
          case Opt::kUsers:
            o.users = SplitList(v);
            return absl::OkStatus();
          case Opt::kPartitions:
            o.partitions = SplitList(v);
            return absl::OkStatus();
          case Opt::kStates:
            return SetStates(v, o);
          case Opt::kStart:
            o.start = true;
            return absl::OkStatus();
        }
        return absl::InternalError("unhandled squeue option");
      });
  if (!operands.ok()) {
    return operands.status();
  }
  size_t next = 0;
  if (jobs_flag && next < operands->size()) {
    if (absl::Status s = SetJobs((*operands)[next++], o); !s.ok()) {
      return s;
    }
  }
  if (next < operands->size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("error: Unrecognized option: ", (*operands)[next]));
  }
  return o;
}

}  // namespace canopy::ctl::squeue
