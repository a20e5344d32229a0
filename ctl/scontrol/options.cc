#include "ctl/scontrol/options.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/slurm/getopt.h"

namespace canopy::ctl::scontrol {
namespace {

enum class Opt { kAll, kDetails, kOneLiner, kQuiet, kVerbose, kVersion };

using slurm::ArgKind;

// Slurm 22.05's scontrol options that Canopy accepts (scontrol.c `long_options`).
constexpr slurm::OptionSpec kOptions[] = {
    {"all", 'a', ArgKind::kNone, Opt::kAll},
    {"details", 'd', ArgKind::kNone, Opt::kDetails},
    {"oneliner", 'o', ArgKind::kNone, Opt::kOneLiner},
    {"quiet", 'Q', ArgKind::kNone, Opt::kQuiet},
    {"verbose", 'v', ArgKind::kNone, Opt::kVerbose},
    {"version", 'V', ArgKind::kNone, Opt::kVersion},
};
constexpr slurm::OptionTable kTable{"scontrol", slurm::Ordering::kPermute, kOptions};

// Slurm accepts any unambiguous prefix of a keyword ("sh" for "show", "hostn" for "hostnames").
bool Abbrev(const std::string& word, const std::string& keyword, size_t min_len) {
  const std::string w = absl::AsciiStrToLower(word);
  return w.size() >= min_len && w.size() <= keyword.size() && keyword.compare(0, w.size(), w) == 0;
}

absl::StatusOr<ScontrolRequest> ParseShow(const std::vector<std::string>& rest) {
  if (rest.empty()) {
    return absl::InvalidArgumentError("too few arguments for keyword:show");
  }
  // "show hostnames=EXPR" is the same as "show hostnames EXPR".
  std::string entity = rest[0];
  ScontrolRequest request;
  request.args.assign(rest.begin() + 1, rest.end());
  if (const size_t eq = entity.find('='); eq != std::string::npos) {
    request.args.insert(request.args.begin(), entity.substr(eq + 1));
    entity = entity.substr(0, eq);
  }
  if (request.args.size() > 1) {
    return absl::InvalidArgumentError("too many arguments for keyword:show");
  }
  if (Abbrev(entity, "hostnames", 5)) {
    request.command = Command::kShowHostnames;
  } else if (Abbrev(entity, "hostlistsorted", 9)) {
    request.command = Command::kShowHostlistSorted;
  } else if (Abbrev(entity, "hostlist", 5)) {
    request.command = Command::kShowHostlist;
  } else if (Abbrev(entity, "topology", 1)) {
    request.command = Command::kShowTopology;
  } else if (Abbrev(entity, "jobs", 1) || Abbrev(entity, "jobid", 4)) {
    request.command = Command::kShowJob;
  } else if (Abbrev(entity, "config", 1)) {
    request.command = Command::kShowConfig;
  } else if (Abbrev(entity, "nodes", 1)) {
    request.command = Command::kShowNode;
  } else if (Abbrev(entity, "partitions", 2) || Abbrev(entity, "partitionname", 2)) {
    request.command = Command::kShowPartition;
  } else if (Abbrev(entity, "reservations", 1) || Abbrev(entity, "reservationname", 1)) {
    request.command = Command::kShowReservation;
  } else if (Abbrev(entity, "steps", 2)) {
    request.command = Command::kShowSteps;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid entity:", entity, " for keyword:show "));
  }
  return request;
}

// The commands that act on a job list. requeue and requeuehold must be written out: one is a
// prefix of the other.
std::optional<Command> JobCommand(const std::string& word) {
  if (Abbrev(word, "hold", 4)) {
    return Command::kHold;
  }
  if (Abbrev(word, "uhold", 5)) {
    return Command::kUserHold;
  }
  if (Abbrev(word, "release", 3)) {
    return Command::kRelease;
  }
  if (absl::AsciiStrToLower(word) == "requeue") {
    return Command::kRequeue;
  }
  if (Abbrev(word, "requeuehold", 8)) {
    return Command::kRequeueHold;
  }
  if (Abbrev(word, "top", 3)) {
    return Command::kTop;
  }
  if (Abbrev(word, "suspend", 2)) {
    return Command::kSuspend;
  }
  if (Abbrev(word, "resume", 3)) {
    return Command::kResume;
  }
  return std::nullopt;
}

// write batch_script JOBID [FILE|-]. Slurm reads "batch_script" from its first five letters.
absl::StatusOr<ScontrolRequest> ParseWrite(const std::string& keyword,
                                           const std::vector<std::string>& rest) {
  if (rest.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("too few arguments for keyword:", keyword));
  }
  if (!Abbrev(rest[0], "batch_script", 5)) {
    return absl::InvalidArgumentError(absl::StrCat("invalid write argument:", rest[0]));
  }
  if (rest.size() > 3) {
    return absl::InvalidArgumentError(absl::StrCat("too many arguments for keyword:", keyword));
  }
  ScontrolRequest request;
  request.command = Command::kWriteBatchScript;
  request.args.assign(rest.begin() + 1, rest.end());
  return request;
}

}  // namespace

absl::StatusOr<ScontrolRequest> ParseScontrolArgs(const std::vector<std::string>& argv) {
  ScontrolRequest options;
  absl::StatusOr<std::vector<std::string>> words = slurm::ParseCommandLine(
      kTable, argv, [&options](const slurm::OptionSpec& option, std::optional<absl::string_view>) {
        switch (option.IdAs<Opt>()) {
          case Opt::kAll:
            options.all = true;
            break;
          case Opt::kDetails:
            options.details = true;
            break;
          case Opt::kOneLiner:
            options.one_liner = true;
            break;
          case Opt::kQuiet:
            options.quiet = true;
            break;
          case Opt::kVerbose:
            ++options.verbose;
            break;
          case Opt::kVersion:
            options.command = Command::kVersion;
            return slurm::StopAtInfoRequest();
        }
        return absl::OkStatus();
      });
  if (slurm::StoppedAtInfoRequest(words.status())) {
    return options;  // -V answers at once, as scontrol does, whatever follows
  }
  if (!words.ok()) {
    // getopt's line carries the program's name; the hint line is printed bare.
    return absl::InvalidArgumentError(absl::StrCat("scontrol: ", words.status().message()));
  }
  const std::vector<std::string>& args = *words;
  if (args.empty()) {
    return absl::InvalidArgumentError(
        "scontrol: interactive mode is not supported by Canopy; give a command, e.g. "
        "'scontrol show hostnames gpu[001-004]'");
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  absl::StatusOr<ScontrolRequest> request;
  if (Abbrev(args[0], "show", 3)) {
    request = ParseShow(rest);
  } else if (Abbrev(args[0], "update", 1)) {
    request = ScontrolRequest();
    request->command = Command::kUpdate;
    request->args = rest;
  } else if (Abbrev(args[0], "write", 5)) {
    request = ParseWrite(args[0], rest);
  } else if (Abbrev(args[0], "version", 4)) {
    request = ScontrolRequest();
    request->command = Command::kVersion;
  } else if (Abbrev(args[0], "ping", 4)) {
    request = ScontrolRequest();
    request->command = Command::kPing;
  } else if (Abbrev(args[0], "reconfigure", 3)) {
    if (!rest.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("too many arguments for keyword:", args[0]));
    }
    request = ScontrolRequest();
    request->command = Command::kReconfigure;
  } else if (Abbrev(args[0], "notify", 1)) {
    // Slurm joins the words after the job id into one message.
    if (rest.size() < 2) {
      return absl::InvalidArgumentError(absl::StrCat("too few arguments for keyword:", args[0]));
    }
    request = ScontrolRequest();
    request->command = Command::kNotify;
    request->args = rest;
  } else if (Abbrev(args[0], "listpids", 1)) {
    if (rest.size() > 2) {
      return absl::InvalidArgumentError(absl::StrCat("too many arguments for keyword:", args[0]));
    }
    request = ScontrolRequest();
    request->command = Command::kListPids;
    request->args = rest;
  } else if (std::optional<Command> job = JobCommand(args[0]); job.has_value()) {
    if (rest.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("too few arguments for keyword:", absl::AsciiStrToLower(args[0])));
    }
    request = ScontrolRequest();
    request->command = *job;
    request->args = rest;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("invalid keyword: ", args[0]));
  }
  if (request.ok()) {
    request->all = options.all;
    request->details = options.details;
    request->one_liner = options.one_liner;
    request->quiet = options.quiet;
    request->verbose = options.verbose;
  }
  return request;
}

absl::StatusOr<canopy::v1::UpdateNodeRequest> ParseNodeUpdate(
    const std::vector<std::string>& words) {
  canopy::v1::UpdateNodeRequest request;
  std::string state;
  for (const std::string& word : words) {
    const size_t eq = word.find('=');
    if (eq == std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("scontrol: error: Invalid input: ", word, "\nRequest aborted"));
    }
    const std::string key = absl::AsciiStrToLower(word.substr(0, eq));
    const std::string value = word.substr(eq + 1);
    if (key == "nodename") {
      request.set_nodes(value);
    } else if (key == "state") {
      state = absl::AsciiStrToLower(value);
    } else if (key == "reason") {
      request.set_reason(value);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("scontrol: error: Update of this parameter is not supported: ", word,
                       "\nRequest aborted"));
    }
  }
  if (state == "drain") {
    request.set_action(canopy::v1::UpdateNodeRequest::ACTION_DRAIN);
  } else if (state == "down") {
    request.set_action(canopy::v1::UpdateNodeRequest::ACTION_DOWN);
  } else if (state == "resume" || state == "idle" || state == "undrain") {
    request.set_action(canopy::v1::UpdateNodeRequest::ACTION_RESUME);
  } else {
    return absl::InvalidArgumentError("scontrol: error: Invalid node state specified");
  }
  if (request.action() != canopy::v1::UpdateNodeRequest::ACTION_RESUME &&
      request.reason().empty()) {
    return absl::InvalidArgumentError(
        "You must specify a reason when DOWNING or DRAINING a node. Request denied");
  }
  return request;
}

}  // namespace canopy::ctl::scontrol
