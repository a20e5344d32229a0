// sacctmgr's flat file (sacctmgr_file.h).
#include "common/slurm/sacctmgr_file.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace canopy::slurm {
namespace {

using Kind = FlatFileRecord::Kind;

bool KindFromWord(absl::string_view word, Kind& kind) {
  struct Known {
    absl::string_view word;
    Kind kind;
  };
  static constexpr Known kKinds[] = {{"cluster", Kind::kCluster},
                                     {"parent", Kind::kParent},
                                     {"account", Kind::kAccount},
                                     {"user", Kind::kUser},
                                     {"qos", Kind::kQos}};
  for (const Known& k : kKinds) {
    if (absl::EqualsIgnoreCase(word, k.word)) {
      kind = k.kind;
      return true;
    }
  }
  return false;
}

absl::string_view KindWord(Kind kind) {
  switch (kind) {
    case Kind::kCluster:
      return "Cluster";
    case Kind::kParent:
      return "Parent";
    case Kind::kAccount:
      return "Account";
    case Kind::kUser:
      return "User";
    case Kind::kQos:
      return "QOS";
  }
  return "Account";
}

// Splits `rest` at ':' outside single quotes, removing the quotes. False on an unterminated
// quote.
bool SplitFields(absl::string_view rest, std::vector<std::string>& fields) {
  std::string field;
  bool quoted = false;
  for (char c : rest) {
    if (c == '\'') {
      quoted = !quoted;
    } else if (c == ':' && !quoted) {
      fields.push_back(std::move(field));
      field.clear();
    } else {
      field.push_back(c);
    }
  }
  if (quoted) {
    return false;
  }
  fields.push_back(std::move(field));
  return true;
}

}  // namespace

const std::string* FlatFileRecord::Option(absl::string_view key) const {
  for (const auto& [k, v] : options) {
    if (absl::EqualsIgnoreCase(k, key)) {
      return &v;
    }
  }
  return nullptr;
}

absl::StatusOr<std::vector<FlatFileRecord>> ParseFlatFile(absl::string_view text,
                                                          absl::string_view origin) {
  std::vector<FlatFileRecord> records;
  int line_number = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++line_number;
    const absl::string_view line = absl::StripAsciiWhitespace(raw);
    if (line.empty() || line[0] == '#') {
      continue;
    }
    auto bad = [&](absl::string_view what) {
      return absl::InvalidArgumentError(absl::StrCat(origin, ":", line_number, ": ", what));
    };
    const size_t dash = line.find(" - ");
    if (dash == absl::string_view::npos) {
      return bad(absl::StrCat("expected 'Type - 'name'[:Option=Value...]', got '", line, "'"));
    }
    FlatFileRecord record;
    record.line = line_number;
    if (!KindFromWord(absl::StripAsciiWhitespace(line.substr(0, dash)), record.kind)) {
      return bad(absl::StrCat("unknown record type '", line.substr(0, dash),
                              "' (expected Cluster, Parent, Account, User or QOS)"));
    }
    std::vector<std::string> fields;
    if (!SplitFields(absl::StripAsciiWhitespace(line.substr(dash + 3)), fields)) {
      return bad("unterminated single quote");
    }
    record.name = std::string(absl::StripAsciiWhitespace(fields[0]));
    if (record.name.empty()) {
      return bad(absl::StrCat(KindWord(record.kind), " record without a name"));
    }
    for (size_t i = 1; i < fields.size(); ++i) {
      const absl::string_view field = absl::StripAsciiWhitespace(fields[i]);
      if (field.empty()) {
        continue;
      }
      const size_t eq = field.find('=');
      if (eq == absl::string_view::npos || eq == 0) {
        return bad(absl::StrCat("option '", field, "' is not Key=Value"));
      }
      record.options.emplace_back(std::string(field.substr(0, eq)),
                                  std::string(field.substr(eq + 1)));
    }
    records.push_back(std::move(record));
  }
  return records;
}

std::string FormatFlatFileRecord(const FlatFileRecord& record) {
  std::string out = absl::StrCat(KindWord(record.kind), " - '", record.name, "'");
  for (const auto& [key, value] : record.options) {
    int64_t number = 0;
    const bool bare = absl::SimpleAtoi(value, &number);
    absl::StrAppend(&out, ":", key, "=", bare ? value : absl::StrCat("'", value, "'"));
  }
  return out;
}

}  // namespace canopy::slurm
