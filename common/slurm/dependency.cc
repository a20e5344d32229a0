// Reading and writing --dependency values (dependency.h).
#include "common/slurm/dependency.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/slurm/array_spec.h"

namespace canopy::slurm {
namespace {

constexpr absl::string_view kExpected =
    "expected TYPE:JOBID[_TASK][+MINUTES][:JOBID...] items joined by ',' (all must be "
    "satisfied) or '?' (any one), TYPE one of after, afterany, afterok, afternotok, aftercorr; "
    "or singleton";

struct TypeName {
  absl::string_view name;
  DependencyType type;
};
constexpr TypeName kTypes[] = {
    {"after", DependencyType::kAfter},         {"afterany", DependencyType::kAfterAny},
    {"afterok", DependencyType::kAfterOk},     {"afternotok", DependencyType::kAfterNotOk},
    {"aftercorr", DependencyType::kAfterCorr}, {"singleton", DependencyType::kSingleton},
};

// A cursor over the value; every error names the whole value and what was wrong.
class Reader {
 public:
  explicit Reader(absl::string_view text) : text_(text) {}

  bool done() const { return pos_ >= text_.size(); }
  char peek() const { return done() ? '\0' : text_[pos_]; }
  void skip(size_t n) { pos_ += n; }
  absl::string_view rest() const { return text_.substr(pos_); }

  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("--dependency='", text_, "': ", what, " (", kExpected, ")"));
  }

  // A decimal number that fits `max`, positive unless `zero_ok`; `what` names it in errors.
  absl::StatusOr<uint64_t> Number(absl::string_view what, uint64_t max, bool zero_ok = false) {
    const size_t start = pos_;
    uint64_t value = 0;
    while (!done() && absl::ascii_isdigit(static_cast<unsigned char>(peek()))) {
      value = value * 10 + static_cast<uint64_t>(peek() - '0');
      ++pos_;
      if (value > max) {
        return Error(
            absl::StrCat(what, " '", text_.substr(start, pos_ - start), "...' is too large"));
      }
    }
    if (pos_ == start) {
      const absl::string_view got = rest().substr(0, std::min<size_t>(rest().size(), 12));
      return Error(absl::StrCat("expected ", what, " at '", got, "'"));
    }
    if (value == 0 && !zero_ok) {
      return Error(absl::StrCat(what, " must be positive"));
    }
    return value;
  }

 private:
  absl::string_view text_;
  size_t pos_ = 0;
};

// Items of one dependency at most: the controller refuses more (submit_limits.h), and the
// parser stops there instead of expanding "afterany:7_[0-4000000]" into millions.
constexpr size_t kMaxItems = 16384;

// Appended as read; repeats are dropped at the end (DropRepeats), in linear time.
void Add(DependencyItem item, DependencyList& out) { out.items.push_back(std::move(item)); }

// Slurm keeps one item per (type, job, task): the first.
void DropRepeats(DependencyList& out) {
  absl::flat_hash_set<std::tuple<DependencyType, uint32_t, std::optional<uint32_t>>> seen;
  std::erase_if(out.items, [&](const DependencyItem& item) {
    return !seen.insert({item.type, item.job_id, item.task_id}).second;
  });
}

// One JOB[_TASK|_*|_[LIST]][+MIN] of `type`.
absl::Status ReadJob(Reader& r, DependencyType type, bool old_form, DependencyList& out) {
  absl::StatusOr<uint64_t> job = r.Number("a job id", UINT32_MAX);
  if (!job.ok()) {
    return job.status();
  }
  DependencyItem item;
  item.type = type;
  item.job_id = static_cast<uint32_t>(*job);
  std::vector<uint32_t> tasks;
  if (r.peek() == '_') {
    r.skip(1);
    if (r.peek() == '*') {
      r.skip(1);  // the whole array: the same as naming the array's id
    } else if (r.peek() == '[') {
      const size_t close = r.rest().find(']');
      if (close == absl::string_view::npos) {
        return r.Error("'_[' without its ']'");
      }
      const absl::string_view list = r.rest().substr(1, close - 1);
      if (absl::StrContains(list, '%')) {
        return r.Error(absl::StrCat("'%' has no meaning in the task list '", list, "'"));
      }
      // Task ids up to Slurm's largest MaxArraySize; the controller's own is checked there.
      absl::StatusOr<ArraySpec> spec = ParseArraySpec(list, kMaxArraySizeLimit);
      if (!spec.ok()) {
        return r.Error(absl::StrCat("bad task list '", list, "': ", spec.status().message()));
      }
      tasks = spec->task_ids;
      r.skip(close + 1);
    } else {
      absl::StatusOr<uint64_t> task =
          r.Number("an array task id", UINT32_MAX, /*zero_ok=*/true);  // task 0 is a task
      if (!task.ok()) {
        return task.status();
      }
      tasks.push_back(static_cast<uint32_t>(*task));
    }
  }
  if (r.peek() == '+') {
    if (old_form) {
      return r.Error("'+MINUTES' needs a type (after:JOBID+MINUTES)");
    }
    r.skip(1);
    absl::StatusOr<uint64_t> minutes = r.Number("a number of minutes", 35791394);  // < 2^31 s
    if (!minutes.ok()) {
      return minutes.status();
    }
    item.minutes = static_cast<int64_t>(*minutes);
  }
  if (out.items.size() + std::max<size_t>(tasks.size(), 1) > kMaxItems) {
    return r.Error(absl::StrCat("more than ", kMaxItems, " jobs and tasks in one dependency"));
  }
  if (tasks.empty()) {
    Add(item, out);
  }
  for (uint32_t task : tasks) {
    item.task_id = task;
    Add(item, out);
  }
  return absl::OkStatus();
}

// One TYPE:JOB[:JOB...], "singleton", or the old bare JOB.
absl::Status ReadGroup(Reader& r, DependencyList& out) {
  if (absl::ascii_isdigit(static_cast<unsigned char>(r.peek()))) {
    return ReadJob(r, DependencyType::kAfterAny, /*old_form=*/true, out);
  }
  const absl::string_view rest = r.rest();
  if (absl::StartsWithIgnoreCase(rest, "singleton") &&
      (rest.size() == 9 || rest[9] == ',' || rest[9] == '?')) {
    r.skip(9);
    DependencyItem item;
    item.type = DependencyType::kSingleton;
    Add(item, out);
    return absl::OkStatus();
  }
  const size_t colon = rest.find(':');
  const size_t end = rest.find_first_of(",?");
  if (colon == absl::string_view::npos || (end != absl::string_view::npos && end < colon)) {
    return r.Error(
        absl::StrCat("'", rest.substr(0, std::min(end, rest.size())), "' is not a dependency"));
  }
  const std::string word = absl::AsciiStrToLower(rest.substr(0, colon));
  if (word == "afterburstbuffer" || word == "expand") {
    return r.Error(absl::StrCat("Canopy does not support ", word, " dependencies"));
  }
  const TypeName* found = nullptr;
  for (const TypeName& t : kTypes) {
    if (t.name == word && t.type != DependencyType::kSingleton) {
      found = &t;
    }
  }
  if (found == nullptr) {
    return r.Error(absl::StrCat("unknown dependency type '", rest.substr(0, colon), "'"));
  }
  r.skip(colon + 1);
  while (true) {
    if (absl::Status s = ReadJob(r, found->type, /*old_form=*/false, out); !s.ok()) {
      return s;
    }
    if (r.peek() != ':') {
      return absl::OkStatus();
    }
    r.skip(1);
  }
}

}  // namespace

absl::string_view DependencyTypeName(DependencyType type) {
  for (const TypeName& t : kTypes) {
    if (t.type == type) {
      return t.name;
    }
  }
  return "unknown";
}

absl::StatusOr<DependencyList> ParseDependency(absl::string_view text) {
  Reader r(text);
  if (r.done()) {
    return r.Error("the value is empty");
  }
  DependencyList out;
  std::optional<char> separator;
  while (true) {
    if (absl::Status s = ReadGroup(r, out); !s.ok()) {
      return s;
    }
    if (r.done()) {
      break;
    }
    const char c = r.peek();
    if (c != ',' && c != '?') {
      return r.Error(absl::StrCat("unexpected '", r.rest(), "'"));
    }
    if (separator.has_value() && *separator != c) {
      return r.Error("use either ',' (all) or '?' (any) between items, not both");
    }
    separator = c;
    r.skip(1);
    if (r.done()) {
      return r.Error(absl::StrCat("nothing after the last '", std::string(1, c), "'"));
    }
  }
  out.any = separator == '?';
  DropRepeats(out);
  return out;
}

std::string FormatDependency(const DependencyList& list) {
  std::string out;
  for (const DependencyItem& item : list.items) {
    if (item.state == DependencyState::kFulfilled) {
      continue;
    }
    if (!out.empty()) {
      out.push_back(list.any ? '?' : ',');
    }
    absl::StrAppend(&out, DependencyTypeName(item.type));
    if (item.type != DependencyType::kSingleton) {
      absl::StrAppend(&out, ":", item.job_id);
      if (item.task_id.has_value()) {
        absl::StrAppend(&out, "_", *item.task_id);
      } else if (item.whole_array) {
        absl::StrAppend(&out, "_*");
      }
      if (item.minutes > 0) {
        absl::StrAppend(&out, "+", item.minutes);
      }
    }
    absl::StrAppend(&out, item.state == DependencyState::kFailed ? "(failed)" : "(unfulfilled)");
  }
  return out.empty() ? "(null)" : out;
}

}  // namespace canopy::slurm
