// slurm.conf lexing; see slurm_conf_lexer.h.
#include "common/config/slurm_conf_lexer.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/config/parse_util.h"

namespace canopy::config::internal {
namespace {

// Cuts `line` at the first '#' that is not escaped by an odd number of backslashes, as
// Slurm's _strip_comments does (quotes do not protect '#', in Slurm either).
absl::string_view StripComment(absl::string_view line) {
  int backslashes = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '#' && backslashes % 2 == 0) {
      return line.substr(0, i);
    }
    backslashes = line[i] == '\\' ? backslashes + 1 : 0;
  }
  return line;
}

// True when `line` ends in an unescaped backslash, i.e. continues on the next line.
bool EndsInContinuation(absl::string_view line) {
  size_t backslashes = 0;
  while (backslashes < line.size() && line[line.size() - 1 - backslashes] == '\\') {
    ++backslashes;
  }
  return backslashes % 2 == 1;
}

// Removes escaping backslashes ("\#" -> "#", "\\" -> "\"), as Slurm's _strip_escapes does.
std::string StripEscapes(absl::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size()) {
      ++i;
    }
    out.push_back(line[i]);
  }
  return out;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

absl::StatusOr<std::vector<SlurmConfToken>> Tokenize(absl::string_view line, int line_number,
                                                     absl::string_view origin) {
  std::vector<SlurmConfToken> tokens;
  SlurmConfToken current;
  bool in_token = false;  // true once the token has content (an empty "" counts)
  bool in_quote = false;
  auto flush = [&] {
    if (in_token) {
      tokens.push_back(std::move(current));
    }
    current = SlurmConfToken();
    in_token = false;
  };
  for (char c : line) {
    if (in_quote) {
      if (c == '"') {
        in_quote = false;
        continue;
      }
    } else if (c == '"') {
      in_quote = true;
      in_token = true;
      continue;
    } else if (IsSpace(c)) {
      flush();
      continue;
    } else if (c == '=' && !current.has_equals) {
      current.has_equals = true;
      current.raw.push_back(c);
      in_token = true;
      continue;
    }
    (current.has_equals ? current.value : current.key).push_back(c);
    current.raw.push_back(c);
    in_token = true;
  }
  if (in_quote) {
    return absl::InvalidArgumentError(absl::StrCat(
        origin, ":", line_number, ": unterminated quote in ", Quote(current.raw, '\'')));
  }
  flush();
  return tokens;
}

}  // namespace

absl::StatusOr<std::vector<SlurmConfLine>> LexSlurmConf(absl::string_view text,
                                                        absl::string_view origin) {
  std::vector<SlurmConfLine> lines;
  std::string logical;
  int logical_start = 0;  // 0 = no logical line in progress
  int line_number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == absl::string_view::npos) {
      end = text.size();
    }
    absl::string_view physical = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    if (!physical.empty() && physical.back() == '\r') {
      physical.remove_suffix(1);
    }
    physical = StripComment(physical);
    if (logical_start == 0) {
      logical_start = line_number;
    }
    const bool continues = EndsInContinuation(physical);
    if (continues) {
      physical.remove_suffix(1);
    }
    logical.append(physical.data(), physical.size());
    if (continues && pos < text.size()) {
      continue;  // Slurm joins the next line directly, without adding a space
    }
    absl::StatusOr<std::vector<SlurmConfToken>> tokens =
        Tokenize(StripEscapes(logical), logical_start, origin);
    if (!tokens.ok()) {
      return tokens.status();
    }
    if (!tokens->empty()) {
      lines.push_back(SlurmConfLine{logical_start, *std::move(tokens)});
    }
    logical.clear();
    logical_start = 0;
  }
  return lines;
}

}  // namespace canopy::config::internal
