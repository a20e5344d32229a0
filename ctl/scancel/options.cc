#include "ctl/scancel/options.h"

#include <csignal>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "ctl/output/job_format.h"

namespace canopy::ctl::scancel {
namespace {

struct SignalName {
  const char* name;
  int number;
};

constexpr SignalName kSignals[] = {
    {"HUP", SIGHUP},   {"INT", SIGINT},     {"QUIT", SIGQUIT}, {"ABRT", SIGABRT},
    {"KILL", SIGKILL}, {"USR1", SIGUSR1},   {"SEGV", SIGSEGV}, {"USR2", SIGUSR2},
    {"PIPE", SIGPIPE}, {"ALRM", SIGALRM},   {"TERM", SIGTERM}, {"CONT", SIGCONT},
    {"STOP", SIGSTOP}, {"TSTP", SIGTSTP},   {"TTIN", SIGTTIN}, {"TTOU", SIGTTOU},
    {"URG", SIGURG},   {"XCPU", SIGXCPU},   {"XFSZ", SIGXFSZ}, {"VTALRM", SIGVTALRM},
    {"PROF", SIGPROF}, {"WINCH", SIGWINCH}, {"BUS", SIGBUS},
};

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

}  // namespace

std::optional<int> ParseSignal(absl::string_view text) {
  int number = 0;
  if (absl::SimpleAtoi(text, &number)) {
    return number > 0 && number < 128 ? std::optional<int>(number) : std::nullopt;
  }
  std::string upper = absl::AsciiStrToUpper(text);
  absl::string_view name = upper;
  absl::ConsumePrefix(&name, "SIG");
  for (const SignalName& s : kSignals) {
    if (name == s.name) {
      return s.number;
    }
  }
  return std::nullopt;
}

absl::StatusOr<ScancelOptions> ParseScancelArgs(const std::vector<std::string>& args) {
  ScancelOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    std::string value;
    bool has_value = false;
    if (absl::StartsWith(arg, "--")) {
      if (const size_t eq = arg.find('='); eq != std::string::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        has_value = true;
      }
    } else if (arg.size() > 2 && arg[0] == '-' && arg != "-vv" && arg != "-vvv") {
      value = arg.substr(2);
      arg = arg.substr(0, 2);
      has_value = true;
    }
    auto take = [&]() -> absl::StatusOr<std::string> {
      if (has_value) {
        return value;
      }
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("option requires an argument -- '", arg.substr(arg.find_first_not_of('-')),
                         "'\nTry \"scancel --help\" for more information"));
      }
      return args[++i];
    };
    if (arg == "-b" || arg == "--batch") {
      o.batch = true;
    } else if (arg == "-v" || arg == "--verbose") {
      ++o.verbose;
    } else if (arg == "-vv" || arg == "-vvv") {
      o.verbose += static_cast<int>(arg.size()) - 1;
    } else if (arg == "-s" || arg == "--signal") {
      absl::StatusOr<std::string> v = take();
      if (!v.ok()) {
        return v.status();
      }
      std::optional<int> sig = ParseSignal(*v);
      if (!sig) {
        return absl::InvalidArgumentError(absl::StrCat("Unknown job signal: ", *v));
      }
      o.signal = *sig;
    } else if (arg == "-u" || arg == "--user" || arg == "-n" || arg == "--name" ||
               arg == "--jobname" || arg == "-p" || arg == "--partition" || arg == "-t" ||
               arg == "--state") {
      absl::StatusOr<std::string> v = take();
      if (!v.ok()) {
        return v.status();
      }
      if (arg == "-u" || arg == "--user") {
        o.user = *v;
      } else if (arg == "-n" || arg == "--name" || arg == "--jobname") {
        o.name = *v;
      } else if (arg == "-p" || arg == "--partition") {
        o.partition = *v;
      } else {
        std::optional<canopy::v1::JobState> st = output::ParseJobState(*v);
        if (!st) {
          return absl::InvalidArgumentError(
              absl::StrCat("error: Invalid job state specified: ", *v));
        }
        o.state = st;
      }
    } else if (!arg.empty() && arg[0] == '-') {
      return absl::InvalidArgumentError(absl::StrCat(
          absl::StartsWith(arg, "--") ? "unrecognized option '" : "invalid option -- '",
          absl::StartsWith(arg, "--") ? args[i] : arg.substr(1),
          "'\nTry \"scancel --help\" for more information"));
    } else {
      absl::StatusOr<ScancelTarget> t = ParseTarget(arg);
      if (!t.ok()) {
        return t.status();
      }
      o.targets.push_back(*t);
    }
  }
  if (o.targets.empty() && !o.HasFilters()) {
    return absl::InvalidArgumentError("error: No job identification provided");
  }
  return o;
}

}  // namespace canopy::ctl::scancel
