#include "ctl/scontrol/options.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace canopy::ctl::scontrol {
namespace {

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
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid entity:", entity, " for keyword:show "));
  }
  return request;
}

}  // namespace

absl::StatusOr<ScontrolRequest> ParseScontrolArgs(const std::vector<std::string>& args) {
  if (args.empty()) {
    return absl::InvalidArgumentError(
        "scontrol: interactive mode is not supported by Canopy; give a command, e.g. "
        "'scontrol show hostnames gpu[001-004]'");
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (Abbrev(args[0], "show", 3)) {
    return ParseShow(rest);
  }
  if (Abbrev(args[0], "update", 1)) {
    return ScontrolRequest{Command::kUpdate, rest};
  }
  if (Abbrev(args[0], "ping", 4)) {
    return ScontrolRequest{Command::kPing, {}};
  }
  return absl::InvalidArgumentError(absl::StrCat("invalid keyword: ", args[0]));
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
