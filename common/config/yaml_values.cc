// Typed reading of yaml-cpp nodes; see yaml_values.h.
#include "common/config/yaml_values.h"

#include <algorithm>
#include <optional>
#include <sstream>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/config/parse_util.h"
#include "common/slurm/time_format.h"
#include "yaml-cpp/eventhandler.h"

namespace canopy::config::internal {
namespace {

// Parses without building nodes and remembers where the last document started.
class DocumentStarts : public YAML::EventHandler {
 public:
  int last_line() const { return last_line_; }

  void OnDocumentStart(const YAML::Mark& mark) override { last_line_ = mark.line + 1; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

 private:
  int last_line_ = 0;
};

bool IsScalar(const YAML::Node& node) { return node.IsDefined() && node.IsScalar(); }

// The value's own line, or `fallback` (its key's or its list's) when it has none: yaml-cpp
// places an empty value at the next token, which is often on a later line.
int LineOr(const YAML::Node& node, int fallback) {
  if (!node.IsDefined() || node.IsNull()) {
    return fallback;
  }
  const int line = YamlLine(node);
  return line > 0 ? line : fallback;
}

}  // namespace

int SecondYamlDocumentLine(const std::string& text) {
  std::istringstream input(text);
  YAML::Parser parser(input);
  DocumentStarts starts;
  // At most two calls, so the LoadAll() loop cannot happen here.
  if (!parser.HandleNextDocument(starts) || !parser.HandleNextDocument(starts)) {
    return 0;
  }
  return std::max(1, starts.last_line());
}

int YamlLine(const YAML::Node& node) {
  if (!node.IsDefined()) {
    return 0;
  }
  const YAML::Mark mark = node.Mark();
  return mark.line < 0 ? 0 : mark.line + 1;
}

std::string DescribeYaml(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) {
    return "nothing";
  }
  if (node.IsSequence()) {
    return "a list";
  }
  if (node.IsMap()) {
    return "a mapping";
  }
  return Quote(node.Scalar(), '"');
}

YamlValue YamlReader::Root(const YAML::Node& node) const {
  return YamlValue{node, "", LineOr(node, 0)};
}

std::string YamlReader::Where(const YamlValue& v) const {
  std::string text = origin_;
  if (v.line > 0) {
    absl::StrAppend(&text, ":", v.line);
  }
  if (!v.path.empty()) {
    absl::StrAppend(&text, ": ", v.path);
  }
  return text;
}

absl::Status YamlReader::Error(const YamlValue& v, absl::string_view message) const {
  return absl::InvalidArgumentError(absl::StrCat(Where(v), ": ", message));
}

absl::Status YamlReader::Expected(const YamlValue& v, absl::string_view expected) const {
  return Error(v, absl::StrCat("expected ", expected, ", got ", DescribeYaml(v.node)));
}

absl::StatusOr<std::string> YamlReader::String(const YamlValue& v) const {
  if (!IsScalar(v.node)) {
    return Expected(v, "a string");
  }
  return v.node.Scalar();
}

absl::StatusOr<int64_t> YamlReader::Int(const YamlValue& v, int64_t min, int64_t max,
                                        absl::string_view expected) const {
  if (!IsScalar(v.node)) {
    return Expected(v, expected);
  }
  std::optional<int64_t> value = ParseDecimal(v.node.Scalar(), max);
  if (!value || *value < min) {
    return Expected(v, expected);
  }
  return *value;
}

absl::StatusOr<bool> YamlReader::Bool(const YamlValue& v) const {
  if (IsScalar(v.node)) {
    const std::string text = absl::AsciiStrToLower(v.node.Scalar());
    if (text == "true" || text == "yes" || text == "on") {
      return true;
    }
    if (text == "false" || text == "no" || text == "off") {
      return false;
    }
  }
  return Expected(v, "true or false");
}

absl::StatusOr<absl::Duration> YamlReader::Duration(const YamlValue& v, absl::Duration min) const {
  const absl::string_view expected = min > absl::ZeroDuration()
                                         ? "a positive duration such as 30s, 5m or 1h30m"
                                         : "a duration such as 30s, 5m or 1h30m";
  if (!IsScalar(v.node)) {
    return Expected(v, expected);
  }
  const std::string& text = v.node.Scalar();
  absl::Duration d;
  if (std::optional<int64_t> seconds = ParseDecimal(text, int64_t{1} << 40)) {
    d = absl::Seconds(*seconds);
  } else if (text.empty() || text[0] == '-' || text[0] == '+' || !absl::ParseDuration(text, &d) ||
             d == absl::InfiniteDuration()) {
    // absl also accepts signs and "inf"; neither makes sense for these settings.
    return Expected(v, expected);
  }
  if (d < min) {
    return Expected(v, expected);
  }
  return d;
}

absl::StatusOr<absl::Duration> YamlReader::SlurmTime(const YamlValue& v, bool allow_none) const {
  const absl::string_view expected =
      allow_none ? "a Slurm time such as 60, 4:00:00 or 2-00:00:00, UNLIMITED or NONE"
                 : "a Slurm time such as 60, 4:00:00 or 2-00:00:00, or UNLIMITED";
  if (!IsScalar(v.node)) {
    return Expected(v, expected);
  }
  if (allow_none && absl::EqualsIgnoreCase(v.node.Scalar(), "NONE")) {
    return absl::InfiniteDuration();
  }
  absl::StatusOr<absl::Duration> d = slurm::ParseSlurmDuration(v.node.Scalar());
  if (!d.ok()) {
    return Expected(v, expected);
  }
  return *d;
}

absl::StatusOr<std::vector<std::string>> YamlReader::StringList(const YamlValue& v) const {
  std::vector<std::string> items;
  if (IsScalar(v.node)) {
    for (absl::string_view item : absl::StrSplit(v.node.Scalar(), ',')) {
      item = absl::StripAsciiWhitespace(item);
      if (!item.empty()) {
        items.emplace_back(item);
      }
    }
    return items;
  }
  if (!v.node.IsDefined() || !v.node.IsSequence()) {
    return Expected(v, "a list of strings");
  }
  absl::Status s = ForEachElement(v, [&](const YamlValue& element) -> absl::Status {
    absl::StatusOr<std::string> item = String(element);
    if (!item.ok()) {
      return item.status();
    }
    items.push_back(*std::move(item));
    return absl::OkStatus();
  });
  if (!s.ok()) {
    return s;
  }
  return items;
}

absl::Status YamlReader::ForEachEntry(
    const YamlValue& map,
    const std::function<absl::Status(const std::string& key, const YamlValue& value)>& fn) const {
  if (!map.node.IsDefined() || !map.node.IsMap()) {
    return Expected(map, "a mapping of keys to values");
  }
  absl::flat_hash_map<std::string, int> first_line;  // lookup only; never iterated
  for (auto it = map.node.begin(); it != map.node.end(); ++it) {
    // Copies: yaml-cpp iterators hand out proxies, and references into them dangle.
    const YAML::Node key = it->first;
    const YAML::Node value = it->second;
    const int key_line = LineOr(key, map.line);
    if (!IsScalar(key)) {
      return Expected(YamlValue{key, map.path, key_line}, "a plain key");
    }
    YamlValue entry{value,
                    map.path.empty() ? key.Scalar() : absl::StrCat(map.path, ".", key.Scalar()),
                    LineOr(value, key_line)};
    auto [seen, inserted] = first_line.emplace(key.Scalar(), key_line);
    if (!inserted) {
      entry.line = key_line;
      return Error(entry, absl::StrCat("given twice (first on line ", seen->second, ")"));
    }
    if (absl::Status s = fn(key.Scalar(), entry); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status YamlReader::ForEachElement(
    const YamlValue& list, const std::function<absl::Status(const YamlValue& element)>& fn) const {
  if (!list.node.IsDefined() || !list.node.IsSequence()) {
    return Expected(list, "a list");
  }
  int index = 0;
  for (const YAML::Node& element : list.node) {
    const YamlValue v{element, absl::StrCat(list.path, "[", index, "]"),
                      LineOr(element, list.line)};
    if (absl::Status s = fn(v); !s.ok()) {
      return s;
    }
    ++index;
  }
  return absl::OkStatus();
}

}  // namespace canopy::config::internal
