#include "ctl/scancel/options.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/slurm/getopt.h"
#include "common/slurm/option_values.h"
#include "ctl/output/job_format.h"

namespace canopy::ctl::scancel {
namespace {

enum class Opt {
  kBatch,
  kName,
  kPartition,
  kSignal,
  kState,
  kUser,
  kVerbose,
  kHelp,
  kUsage,
  kVersion
};

using slurm::ArgKind;

// Slurm 22.05's long names (scancel/opt.c) for the options Canopy serves, and "--jobname".
constexpr slurm::OptionSpec kOptions[] = {
    {"batch", 'b', ArgKind::kNone, Opt::kBatch},
    {"jobname", '\0', ArgKind::kRequired, Opt::kName},
    {"name", 'n', ArgKind::kRequired, Opt::kName},
    {"partition", 'p', ArgKind::kRequired, Opt::kPartition},
    {"signal", 's', ArgKind::kRequired, Opt::kSignal},
    {"state", 't', ArgKind::kRequired, Opt::kState},
    {"user", 'u', ArgKind::kRequired, Opt::kUser},
    {"verbose", 'v', ArgKind::kNone, Opt::kVerbose},
    {"help", '\0', ArgKind::kNone, Opt::kHelp},
    {"usage", '\0', ArgKind::kNone, Opt::kUsage},
    {"version", 'V', ArgKind::kNone, Opt::kVersion},
};
constexpr slurm::OptionTable kTable{"scancel", slurm::Ordering::kPermute, kOptions};

absl::StatusOr<ScancelTarget> ParseTarget(const std::string& text) {
  ScancelTarget t;
  t.text = text;
  absl::string_view rest = text;
  absl::string_view job = rest;
  const size_t sep = rest.find_first_of("_.");
  if (sep != absl::string_view::npos) {
    job = rest.substr(0, sep);
  }
  const auto invalid = absl::InvalidArgumentError(absl::StrCat("error: Invalid job id ", text));
  if (!absl::SimpleAtoi(job, &t.job_id) || t.job_id == 0) {
    return invalid;
  }
  if (sep == absl::string_view::npos) {
    return t;
  }
  rest = rest.substr(sep);
  if (rest[0] == '_') {
    const size_t dot = rest.find('.');
    uint32_t task = 0;
    if (!absl::SimpleAtoi(rest.substr(1, dot == absl::string_view::npos ? rest.npos : dot - 1),
                          &task)) {
      return invalid;
    }
    t.array_task = task;
    rest = dot == absl::string_view::npos ? absl::string_view() : rest.substr(dot);
  }
  if (!rest.empty()) {
    uint32_t step = 0;
    if (rest[0] != '.' || !absl::SimpleAtoi(rest.substr(1), &step)) {
      return invalid;
    }
    t.step_id = step;
  }
  return t;
}

absl::Status Apply(const slurm::OptionSpec& option, absl::string_view value, ScancelOptions& o) {
  switch (option.IdAs<Opt>()) {
    case Opt::kBatch:
      o.batch = true;
      return absl::OkStatus();
    case Opt::kVerbose:
      ++o.verbose;
      return absl::OkStatus();
    case Opt::kHelp:
    case Opt::kUsage:
    case Opt::kVersion:
      // Answered at once, as scancel does, whatever else the line holds.
      o.info = option.IdAs<Opt>() == Opt::kHelp    ? slurm::InfoRequest::kHelp
               : option.IdAs<Opt>() == Opt::kUsage ? slurm::InfoRequest::kUsage
                                                   : slurm::InfoRequest::kVersion;
      return slurm::StopAtInfoRequest();
    case Opt::kSignal: {
      std::optional<int> signal = slurm::SignalNumber(value);
      if (!signal.has_value()) {
        return absl::InvalidArgumentError(absl::StrCat("Unknown job signal: ", value));
      }
      o.signal = *signal;
      return absl::OkStatus();
    }
    case Opt::kUser:
      o.user = std::string(value);
      return absl::OkStatus();
    case Opt::kName:
      o.name = std::string(value);
      return absl::OkStatus();
    case Opt::kPartition:
      o.partition = std::string(value);
      return absl::OkStatus();
    case Opt::kState: {
      std::optional<canopy::v1::JobState> state = output::ParseJobState(value);
      if (!state.has_value()) {
        return absl::InvalidArgumentError(
            absl::StrCat("error: Invalid job state specified: ", value));
      }
      o.state = state;
      return absl::OkStatus();
    }
  }
  return absl::InternalError("unhandled scancel option");
}

}  // namespace

absl::StatusOr<ScancelOptions> ParseScancelArgs(const std::vector<std::string>& args) {
  ScancelOptions o;
  absl::StatusOr<std::vector<std::string>> ids = slurm::ParseCommandLine(
      kTable, args, [&o](const slurm::OptionSpec& option, std::optional<absl::string_view> value) {
        return Apply(option, value.value_or(""), o);
      });
  if (!ids.ok()) {
    if (slurm::StoppedAtInfoRequest(ids.status())) {
      return o;
    }
    return ids.status();
  }
  for (const std::string& id : *ids) {
    absl::StatusOr<ScancelTarget> target = ParseTarget(id);
    if (!target.ok()) {
      return target.status();
    }
    o.targets.push_back(*std::move(target));
  }
  if (o.targets.empty() && !o.HasFilters()) {
    return absl::InvalidArgumentError("error: No job identification provided");
  }
  return o;
}

}  // namespace canopy::ctl::scancel
