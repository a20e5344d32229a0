// Typed reading of yaml-cpp nodes for the Canopy YAML config, with the error messages the
// format promises: `canopy.yaml:7: nodes[1].cpus: expected a positive integer, got "abc"`.
// Each reader checks the node's kind and text itself instead of calling yaml-cpp's `as<T>()`,
// so a type error becomes a Status naming the field, never an exception.
//
// Internal to canopy_config. YamlReader is immutable after construction and thread-compatible.
// yaml-cpp may still throw on pathological input; the parser's entry point catches that.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "yaml-cpp/yaml.h"

namespace canopy::config::internal {

// A value in the document with the path and line that messages name.
struct YamlValue {
  YAML::Node node;
  std::string path;  // "nodes[1].cpus"; empty for the document itself
  int line = 0;      // 1-based; for an empty value (`cpus:`) the line of its key; 0 = unknown

  YamlValue() = default;
  YamlValue(YAML::Node n, std::string p, int l) : node(std::move(n)), path(std::move(p)), line(l) {}
  YamlValue(const YamlValue&) = default;  // copying a Node refers to the same node
  // yaml-cpp's Node::operator= writes through to the node it refers to, changing the document;
  // assigning a YamlValue rebinds instead.
  YamlValue& operator=(const YamlValue& other) {
    node.reset(other.node);
    path = other.path;
    line = other.line;
    return *this;
  }
};

// 1-based line of `node` in its file, or 0 when yaml-cpp has no position for it.
int YamlLine(const YAML::Node& node);

// The 1-based line where a second YAML document starts in `text` (after a `---`), or 0 if there
// is at most one. yaml-cpp 0.7's LoadAll() can loop forever, allocating, on some malformed
// input (jbeder/yaml-cpp#1319), so callers use this plus YAML::Load() instead. Throws
// YAML::Exception for syntax errors, like YAML::Load().
int SecondYamlDocumentLine(const std::string& text);

// How a value is shown after "got": a quoted scalar, "a list", "a mapping" or "nothing".
std::string DescribeYaml(const YAML::Node& node);

class YamlReader {
 public:
  explicit YamlReader(std::string origin) : origin_(std::move(origin)) {}

  // The document root (path "").
  YamlValue Root(const YAML::Node& node) const;

  // "<origin>:<line>: <path>", the prefix of messages about `v` (parts that are unknown or
  // empty are left out).
  std::string Where(const YamlValue& v) const;
  // InvalidArgument "<Where(v)>: <message>".
  absl::Status Error(const YamlValue& v, absl::string_view message) const;
  // InvalidArgument "<Where(v)>: expected <expected>, got <DescribeYaml(v.node)>".
  absl::Status Expected(const YamlValue& v, absl::string_view expected) const;

  absl::StatusOr<std::string> String(const YamlValue& v) const;
  // A decimal integer in [min, max]; `expected` describes that range for the message.
  absl::StatusOr<int64_t> Int(const YamlValue& v, int64_t min, int64_t max,
                              absl::string_view expected) const;
  // true/false, yes/no, on/off (YAML 1.1 spellings), any case.
  absl::StatusOr<bool> Bool(const YamlValue& v) const;
  // "30s", "5m", "1h30m", "250ms" (absl::ParseDuration) or whole seconds ("30"); at least
  // `min`, never negative or infinite.
  absl::StatusOr<absl::Duration> Duration(const YamlValue& v, absl::Duration min) const;
  // A Slurm time limit ("1-00:00:00", "90" minutes, "UNLIMITED"); with `allow_none` also NONE.
  // NONE and UNLIMITED give InfiniteDuration().
  absl::StatusOr<absl::Duration> SlurmTime(const YamlValue& v, bool allow_none) const;
  // A list of strings, or one string of comma-separated items ("ib,nvlink").
  absl::StatusOr<std::vector<std::string>> StringList(const YamlValue& v) const;

  // Calls `fn(key, value)` for each entry of the mapping `map`, in file order. Rejects a value
  // that is not a mapping, non-scalar keys and a key given twice; stops at the first error.
  absl::Status ForEachEntry(
      const YamlValue& map,
      const std::function<absl::Status(const std::string& key, const YamlValue& value)>& fn) const;
  // Calls `fn(element)` for each element of the list `list` ("path[i]"). Rejects a non-list.
  absl::Status ForEachElement(
      const YamlValue& list, const std::function<absl::Status(const YamlValue& element)>& fn) const;

 private:
  std::string origin_;
};

}  // namespace canopy::config::internal
