// A small JSON document builder for sacct and squeue --json, printed the way Slurm 22.05's
// serializer (json-c with JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED) prints: two-space
// indents, "key": value, keys in insertion order, empty arrays and objects as "[" / "{" and the
// closing bracket on its own line, '/' escaped as "\/", control characters as \uXXXX, other bytes
// as they are. Thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace canopy::ctl::output {

class JsonValue {
 public:
  static JsonValue Null() { return JsonValue(Kind::kNull); }
  static JsonValue Bool(bool b);
  static JsonValue Int(int64_t n);
  static JsonValue String(std::string s);
  static JsonValue Array() { return JsonValue(Kind::kArray); }
  static JsonValue Object() { return JsonValue(Kind::kObject); }

  // On an object: adds a member at the end (no check for duplicates). Returns *this (moved from
  // a temporary, so that chains of Set build a document without copies).
  JsonValue& Set(std::string key, JsonValue value) &;
  JsonValue&& Set(std::string key, JsonValue value) &&;
  // On an array: appends an element. Returns *this.
  JsonValue& Push(JsonValue value) &;
  JsonValue&& Push(JsonValue value) &&;

  // The document, without a trailing newline.
  std::string Pretty() const;

 private:
  enum class Kind { kNull, kBool, kInt, kString, kArray, kObject };
  explicit JsonValue(Kind kind) : kind_(kind) {}
  void Write(int level, std::string& out) const;

  Kind kind_;
  bool bool_ = false;
  int64_t int_ = 0;
  std::string string_;
  std::vector<std::pair<std::string, JsonValue>> members_;  // objects (keys) and arrays
};

}  // namespace canopy::ctl::output
