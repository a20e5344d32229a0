// Lexing of Slurm's slurm.conf format, before any key has a meaning: physical lines are joined
// at a trailing backslash, `#` starts a comment unless escaped (`\#`), a backslash escapes the
// next character, and each logical line splits at unquoted whitespace into `Key=Value` tokens
// (double quotes group text with spaces: `Reason="rack 4 power"`). This mirrors Slurm's
// src/common/parse_config.c (_strip_comments, _strip_escapes, line continuation).
//
// Internal to canopy_config; pure, thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace canopy::config::internal {

struct SlurmConfToken {
  std::string key;    // text before the first unquoted '=' (the whole token if none)
  std::string value;  // text after it, quotes removed
  bool has_equals = false;
  std::string raw;  // the token with quotes removed, for messages
};

struct SlurmConfLine {
  int line = 0;                        // 1-based number of the first physical line
  std::vector<SlurmConfToken> tokens;  // never empty
};

// Splits `text` into logical lines that have at least one token. InvalidArgument
// "<origin>:<line>: unterminated quote in ..." for an odd number of double quotes.
absl::StatusOr<std::vector<SlurmConfLine>> LexSlurmConf(absl::string_view text,
                                                        absl::string_view origin);

}  // namespace canopy::config::internal
