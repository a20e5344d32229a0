#include "ctl/squeue/format.h"

#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace canopy::ctl::squeue {
namespace {

std::string InvalidSpec(FormatKind kind, absl::string_view what) {
  return absl::StrCat(kind == FormatKind::kJobs ? "Invalid job format specification: "
                                                : "Invalid job step format specification: ",
                      what);
}

// Sets the field of `column` named by a letter or a name; false if there is none.
bool SetField(Column& column, FormatKind kind, char letter, absl::string_view name) {
  if (kind == FormatKind::kJobs) {
    column.job_field = name.empty() ? JobFieldByLetter(letter) : JobFieldByName(name);
    return column.job_field != nullptr;
  }
  column.step_field = name.empty() ? StepFieldByLetter(letter) : StepFieldByName(name);
  return column.step_field != nullptr;
}

}  // namespace

ParsedFormat ParseFormat(absl::string_view format, FormatKind kind) {
  if (kind == FormatKind::kJobs && absl::EqualsIgnoreCase(format, "%all")) {
    // Every field, as squeue's "%all": "%a|%b|...|%z|%A|...|%Z", each at its natural width.
    std::string all;
    for (const absl::string_view letters : {absl::string_view("abcdefghijklmnopqrstuvwxyz"),
                                            absl::string_view("ABCDEFGHIJKLMNOPQRSTUVWXYZ")}) {
      for (const char letter : letters) {
        absl::StrAppend(&all, all.empty() ? "%" : "|%", std::string(1, letter));
      }
    }
    return ParseFormat(all, kind);
  }
  ParsedFormat parsed;
  const size_t first = format.find('%');
  if (first != 0) {
    Column prefix;
    prefix.text = std::string(format.substr(0, first));
    parsed.columns.push_back(std::move(prefix));
    if (first == absl::string_view::npos) {
      return parsed;
    }
  }
  for (absl::string_view piece : absl::StrSplit(format.substr(first), '%', absl::SkipEmpty())) {
    Column column;
    size_t at = 0;
    if (piece[at] == '.') {
      column.right = true;
      ++at;
    }
    while (at < piece.size() && absl::ascii_isdigit(static_cast<unsigned char>(piece[at]))) {
      column.width = column.width * 10 + (piece[at] - '0');
      ++at;
    }
    if (at >= piece.size()) {
      continue;  // "%5" at the end: nothing to print
    }
    const char letter = piece[at];
    if (!absl::ascii_isalpha(static_cast<unsigned char>(letter)) ||
        !SetField(column, kind, letter, "")) {
      parsed.errors.push_back(InvalidSpec(kind, std::string(1, letter)));
      Column literal;
      literal.text = absl::StrCat("%", piece);
      parsed.columns.push_back(std::move(literal));
      continue;
    }
    column.suffix = std::string(piece.substr(at + 1));
    parsed.columns.push_back(std::move(column));
  }
  return parsed;
}

ParsedFormat ParseLongFormat(absl::string_view format, FormatKind kind) {
  ParsedFormat parsed;
  for (absl::string_view token : absl::StrSplit(format, ',', absl::SkipEmpty())) {
    Column column;
    column.width = 20;
    absl::string_view name = token;
    if (const size_t colon = token.find(':'); colon != absl::string_view::npos) {
      name = token.substr(0, colon);
      // strtol after the optional '.': the digits are the width, the rest is the suffix.
      const std::string spec(token.substr(colon + 1));
      size_t at = 0;
      if (!spec.empty() && spec[0] == '.') {
        column.right = true;
        at = 1;
      }
      char* end = nullptr;
      column.width = static_cast<int>(std::strtol(spec.c_str() + at, &end, 10));
      column.suffix = end;
    }
    if (!SetField(column, kind, '\0', name)) {
      parsed.errors.push_back(InvalidSpec(kind, name));
      continue;
    }
    parsed.columns.push_back(std::move(column));
  }
  return parsed;
}

std::string FitToColumn(const std::string& value, const Column& column) {
  if (column.width <= 0) {
    return value;
  }
  std::string v = value.substr(0, static_cast<size_t>(column.width));
  const std::string pad(static_cast<size_t>(column.width) - v.size(), ' ');
  return column.right ? pad + v : v + pad;
}

}  // namespace canopy::ctl::squeue
