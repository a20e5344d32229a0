#include "ctl/output/json_value.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/slurm/json_quote.h"

namespace canopy::ctl::output {
namespace {

void Indent(int level, std::string& out) { out.append(static_cast<size_t>(level) * 2, ' '); }

}  // namespace

JsonValue JsonValue::Bool(bool b) {
  JsonValue v(Kind::kBool);
  v.bool_ = b;
  return v;
}

JsonValue JsonValue::Int(int64_t n) {
  JsonValue v(Kind::kInt);
  v.int_ = n;
  return v;
}

JsonValue JsonValue::String(std::string s) {
  JsonValue v(Kind::kString);
  v.string_ = std::move(s);
  return v;
}

JsonValue& JsonValue::Set(std::string key, JsonValue value) & {
  members_.emplace_back(std::move(key), std::move(value));
  return *this;
}

JsonValue&& JsonValue::Set(std::string key, JsonValue value) && {
  members_.emplace_back(std::move(key), std::move(value));
  return std::move(*this);
}

JsonValue& JsonValue::Push(JsonValue value) & {
  members_.emplace_back(std::string(), std::move(value));
  return *this;
}

JsonValue&& JsonValue::Push(JsonValue value) && {
  members_.emplace_back(std::string(), std::move(value));
  return std::move(*this);
}

std::string JsonValue::Pretty() const {
  std::string out;
  Write(0, out);
  return out;
}

void JsonValue::Write(int level, std::string& out) const {
  switch (kind_) {
    case Kind::kNull:
      out += "null";
      return;
    case Kind::kBool:
      out += bool_ ? "true" : "false";
      return;
    case Kind::kInt:
      absl::StrAppend(&out, int_);
      return;
    case Kind::kString:
      out += slurm::JsonQuote(string_);
      return;
    case Kind::kArray:
    case Kind::kObject:
      break;
  }
  const bool object = kind_ == Kind::kObject;
  out += object ? "{\n" : "[\n";
  for (size_t i = 0; i < members_.size(); ++i) {
    if (i > 0) {
      out += ",\n";
    }
    Indent(level + 1, out);
    if (object) {
      absl::StrAppend(&out, slurm::JsonQuote(members_[i].first), ": ");
    }
    members_[i].second.Write(level + 1, out);
  }
  if (!members_.empty()) {
    out += "\n";
  }
  Indent(level, out);
  out += object ? "}" : "]";
}

}  // namespace canopy::ctl::output
