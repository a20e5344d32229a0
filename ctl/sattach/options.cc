#include "ctl/sattach/options.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/slurm/getopt.h"
#include "common/slurm/hostlist.h"
#include "common/slurm/slurm_version.h"

namespace canopy::ctl::sattach {
namespace {

enum class Opt {
  kInputFilter,
  kOutputFilter,
  kErrorFilter,
  kLabel,
  kLayout,
  kQuiet,
  kVerbose,
  kVersion,
  kHelp,
  kUsage
};

constexpr slurm::OptionSpec kOptions[] = {
    {"input-filter", '\0', slurm::ArgKind::kRequired, Opt::kInputFilter},
    {"output-filter", '\0', slurm::ArgKind::kRequired, Opt::kOutputFilter},
    {"error-filter", '\0', slurm::ArgKind::kRequired, Opt::kErrorFilter},
    {"label", 'l', slurm::ArgKind::kNone, Opt::kLabel},
    {"layout", '\0', slurm::ArgKind::kNone, Opt::kLayout},
    {"quiet", 'Q', slurm::ArgKind::kNone, Opt::kQuiet},
    {"verbose", 'v', slurm::ArgKind::kNone, Opt::kVerbose},
    {"version", 'V', slurm::ArgKind::kNone, Opt::kVersion},
    {"help", 'h', slurm::ArgKind::kNone, Opt::kHelp},
    {"usage", 'u', slurm::ArgKind::kNone, Opt::kUsage},
};
constexpr slurm::OptionTable kTable{"sattach", slurm::Ordering::kPermute, kOptions};

constexpr char kUsage[] = "Usage: sattach [options] <jobid.stepid>\n";

absl::StatusOr<int> TaskFilter(absl::string_view value, absl::string_view name) {
  int task = 0;
  if (!absl::SimpleAtoi(value, &task)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid numeric value \"", value, "\" for ", name, "."));
  }
  return task;
}

// "JOB.STEP", both plain numbers (Slurm's slurm_parse_step_str; "13" alone and "13.batch" are
// refused).
bool ParseStepId(const std::string& text, uint32_t& job, uint32_t& step) {
  const size_t dot = text.find('.');
  return dot != std::string::npos && absl::SimpleAtoi(text.substr(0, dot), &job) && job > 0 &&
         absl::SimpleAtoi(text.substr(dot + 1), &step);
}

}  // namespace

absl::StatusOr<SattachOptions> ParseSattachArgs(const std::vector<std::string>& args,
                                                SattachError* error) {
  SattachOptions o;
  auto fail = [error](const absl::Status& s, bool usage) {
    error->message = std::string(s.message());
    error->print_usage = usage;
    return s;
  };
  absl::StatusOr<std::vector<std::string>> operands = slurm::ParseCommandLine(
      kTable, args,
      [&o](const slurm::OptionSpec& option,
           std::optional<absl::string_view> value) -> absl::Status {
        switch (option.IdAs<Opt>()) {
          case Opt::kInputFilter:
          case Opt::kOutputFilter:
          case Opt::kErrorFilter: {
            absl::StatusOr<int> task = TaskFilter(*value, option.long_name);
            if (!task.ok()) {
              return task.status();
            }
            (option.IdAs<Opt>() == Opt::kInputFilter    ? o.input_filter
             : option.IdAs<Opt>() == Opt::kOutputFilter ? o.output_filter
                                                        : o.error_filter) = *task;
            break;
          }
          case Opt::kLabel:
            o.label = true;
            break;
          case Opt::kLayout:
            o.layout = true;
            break;
          case Opt::kQuiet:
            o.quiet = true;
            break;
          case Opt::kVerbose:
            ++o.verbose;
            break;
          case Opt::kVersion:
            o.info = Info::kVersion;
            break;
          case Opt::kHelp:
            o.info = Info::kHelp;
            break;
          case Opt::kUsage:
            o.info = Info::kUsage;
            break;
        }
        return absl::OkStatus();
      });
  if (!operands.ok()) {
    return fail(operands.status(), false);
  }
  if (o.info != Info::kNone) {
    return o;
  }
  if (operands->size() != 1) {
    return fail(absl::InvalidArgumentError("too many parameters"), true);
  }
  if (!ParseStepId((*operands)[0], o.job_id, o.step_id)) {
    return fail(absl::InvalidArgumentError("Failed to parse stepid from command line options"),
                true);
  }
  if (!o.error_filter.has_value()) {
    o.error_filter = o.output_filter;
  }
  return o;
}

std::string SattachInfoText(Info info) {
  switch (info) {
    case Info::kUsage:
      return kUsage;
    case Info::kVersion:
      return slurm::SlurmVersionLine("sattach");
    case Info::kHelp:
      return absl::StrCat(
          kUsage,
          "      --input-filter=taskid  send stdin to only the specified task\n"
          "      --output-filter=taskid only print stdout from the specified task\n"
          "      --error-filter=taskid  only print stderr from the specified task\n"
          "  -l, --label        prepend task number to lines of stdout & stderr\n"
          "      --layout       print task layout info and exit (does not attach to tasks)\n"
          "  -Q, --quiet        quiet mode (suppress informational messages)\n"
          "  -v, --verbose      verbose mode (multiple -v's increase verbosity)\n"
          "  -V, --version      print the Slurm version and exit\n"
          "\n"
          "Help options:\n"
          "  -h, --help         print this help message\n"
          "  -u, --usage        print a brief usage message\n");
    case Info::kNone:
      break;
  }
  return "";
}

std::string LayoutText(const canopy::v1::AttachStepResponse& step) {
  const std::vector<std::string> nodes(step.nodes().begin(), step.nodes().end());
  std::string text =
      absl::StrCat("Job step layout:\n\t", step.ntasks(), " tasks, ", step.nodes_size(), " nodes (",
                   slurm::CompressHostlist(nodes), ")\n\n");
  int rank = 0;
  for (int i = 0; i < step.nodes_size(); ++i) {
    const int tasks = i < step.tasks_per_node_size() ? step.tasks_per_node(i) : 0;
    absl::StrAppend(&text, "\tNode ", i, " (", step.nodes(i), "), ", tasks, " task(s): ");
    for (int t = 0; t < tasks; ++t) {
      absl::StrAppend(&text, rank++, " ");
    }
    absl::StrAppend(&text, "\n");
  }
  return text;
}

bool PassesFilter(const SattachOptions& options, int rank, bool is_stderr) {
  const std::optional<int>& filter = is_stderr ? options.error_filter : options.output_filter;
  return !filter.has_value() || *filter == rank;
}

}  // namespace canopy::ctl::sattach
