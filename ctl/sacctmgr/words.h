// sacctmgr's vocabulary: how a command word is split ("key=value", "key+=value"), how keywords
// match (a case-insensitive prefix of at least a minimum length, as sacctmgr's
// strncasecmp(arg, "Name", MAX(len, min)) checks), lists, quotes, limit and admin-level names,
// and the entity words of each command with sacctmgr's errors for a missing one. Pure;
// thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ctl/sacctmgr/command.h"

namespace canopy::ctl::sacctmgr {

// One command word: "Fairshare=30" -> key "Fairshare", value "30"; "vision" -> key and value
// "vision", has_value false. "Qos+=x" / "Qos-=x" keep the key without the sign.
struct Token {
  std::string text;
  std::string key;
  std::string value;
  bool has_value = false;
};
Token ParseToken(absl::string_view word);

// `key` names `name`: a case-insensitive prefix of it, at least `min` long.
bool KeyIs(absl::string_view key, absl::string_view name, size_t min);
inline bool WordIs(absl::string_view word, absl::string_view name, size_t min) {
  return KeyIs(word, name, min);
}

// A value without surrounding single or double quotes.
std::string StripQuotes(absl::string_view value);

// slurm_addto_char_list: comma-separated items, quotes removed, lower-cased, each once.
void AddToList(absl::string_view value, std::vector<std::string>& list);

// The flat-file name of a limit setting ("maxw" -> "MaxWallDurationPerJob"), or nullptr.
const char* LimitName(absl::string_view key);
// Limits in the order sacctmgr lists them when it echoes settings, with its labels
// ("  MaxJobs       = ").
struct LimitLabel {
  const char* name;
  const char* label;
};
const std::vector<LimitLabel>& LimitLabels();

// "None", "Operator" or "Administrator" for an AdminLevel value (case-insensitive prefix),
// or nullopt.
std::optional<std::string> AdminLevelName(absl::string_view value);

// The entity word after `verb`. InvalidArgument with sacctmgr's "No valid entity in ...
// command" lines; Unimplemented for an entity Slurm has and Canopy does not serve.
absl::StatusOr<Entity> ReadEntity(Verb verb, absl::string_view word);

}  // namespace canopy::ctl::sacctmgr
