#include "common/config/node_scripts.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"

namespace canopy::config::internal {

absl::StatusOr<bool> ApplyNodeScriptKey(absl::string_view key, absl::string_view field,
                                        absl::string_view value, NodeScripts& scripts) {
  std::string* path = nullptr;
  if (key == "prolog") {
    path = &scripts.prolog;
  } else if (key == "epilog") {
    path = &scripts.epilog;
  } else if (key == "taskprolog") {
    path = &scripts.task_prolog;
  } else if (key == "taskepilog") {
    path = &scripts.task_epilog;
  }
  if (path != nullptr) {
    // Slurm wants a fully qualified path: a relative one would depend on the daemon's cwd.
    if (value.empty() || value.front() != '/') {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": expected the absolute path of a script, got '", value, "'"));
    }
    *path = std::string(value);
    return true;
  }
  if (key == "prologflags") {
    scripts.prolog_alloc = false;
    for (absl::string_view flag : absl::StrSplit(value, ',', absl::SkipEmpty())) {
      const std::string lower = absl::AsciiStrToLower(flag);
      if (lower == "alloc" || lower == "contain") {
        scripts.prolog_alloc = true;
      } else {
        return absl::InvalidArgumentError(absl::StrCat(
            field, ": expected Alloc or Contain (the flags Canopy supports), got '", flag, "'"));
      }
    }
    return true;
  }
  return false;
}

absl::Status SetPrologEpilogTimeout(absl::string_view field, absl::Duration timeout,
                                    NodeScripts& scripts) {
  if (timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": expected a positive time (leave it out to wait for the scripts forever), got ",
        absl::FormatDuration(timeout)));
  }
  scripts.prolog_epilog_timeout = timeout;
  return absl::OkStatus();
}

}  // namespace canopy::config::internal
