// #SBATCH directives and the checks before them (the part of sbatch_options.h that reads a
// script's header).
#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/slurm/option_values.h"
#include "common/slurm/sbatch_options.h"

namespace canopy::slurm {
namespace {

bool IsSpace(char c) { return absl::ascii_isspace(static_cast<unsigned char>(c)); }

// Splits the text after "#SBATCH" as Slurm 22.05's _get_argument() does.
absl::Status SplitDirective(absl::string_view rest, int line_number,
                            std::vector<std::string>& out) {
  size_t pos = 0;
  while (true) {
    const size_t start = pos;
    while (pos < rest.size() && IsSpace(rest[pos])) {
      ++pos;
    }
    if (pos >= rest.size()) {
      return absl::OkStatus();
    }
    std::string word;
    char quote = '\0';
    bool escape = false;
    while (pos < rest.size() && (quote != '\0' || !IsSpace(rest[pos]))) {
      const char c = rest[pos];
      if (escape) {
        escape = false;
      } else if (c == '\\') {
        escape = true;
        ++pos;
        continue;
      } else if (quote != '\0') {
        if (c == quote) {
          quote = '\0';
          ++pos;
          continue;
        }
      } else if (c == '"' || c == '\'') {
        quote = c;
        ++pos;
        continue;
      } else if (c == '#') {
        break;  // an unquoted, unescaped '#': the rest of the line is a comment
      }
      word.push_back(c);
      ++pos;
    }
    if (quote != '\0') {
      return absl::InvalidArgumentError(absl::StrCat("fatal: line ", line_number, ": Unmatched `",
                                                     std::string(1, quote), "` in [",
                                                     rest.substr(start), "]"));
    }
    if (word.empty()) {
      return absl::OkStatus();  // Slurm stops at an empty word ("" or a comment)
    }
    out.push_back(std::move(word));
  }
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ExtractSbatchDirectives(absl::string_view script) {
  constexpr absl::string_view kMagic = "#SBATCH";
  std::vector<std::string> args;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(script, '\n')) {
    ++line_number;
    if (absl::StartsWith(line, kMagic)) {
      absl::Status status = SplitDirective(line.substr(kMagic.size()), line_number, args);
      if (!status.ok()) {
        return status;
      }
      continue;
    }
    absl::string_view stripped = absl::StripLeadingAsciiWhitespace(line);
    if (!stripped.empty() && stripped[0] != '#') {
      break;  // the first command ends the directives
    }
  }
  return args;
}

absl::Status CheckBatchScript(absl::string_view script) {
  if (script.empty()) {
    return WithExitCode(absl::InvalidArgumentError("error: Batch script is empty!"), 1);
  }
  // Slurm reads the script as a C string here: only what comes before a NUL counts.
  const absl::string_view as_c_string = script.substr(0, script.find('\0'));
  if (std::all_of(as_c_string.begin(), as_c_string.end(), IsSpace)) {
    return WithExitCode(absl::InvalidArgumentError("error: Batch script contains only whitespace!"),
                        1);
  }
  if (!absl::StartsWith(script, "#!")) {
    return WithExitCode(
        absl::InvalidArgumentError(
            "error: This does not look like a batch script.  The first\n"
            "error: line must start with #! followed by the path to an interpreter.\n"
            "error: For instance: #!/bin/sh"),
        1);
  }
  if (absl::StrContains(script, '\0')) {
    return WithExitCode(
        absl::InvalidArgumentError("error: The Slurm controller does not allow scripts that\n"
                                   "error: contain a NULL character '\\0'."),
        1);
  }
  if (absl::StrContains(script, "\r\n")) {
    return WithExitCode(
        absl::InvalidArgumentError("error: Batch script contains DOS line breaks (\\r\\n)\n"
                                   "error: instead of expected UNIX line breaks (\\n)."),
        1);
  }
  return absl::OkStatus();
}

}  // namespace canopy::slurm
