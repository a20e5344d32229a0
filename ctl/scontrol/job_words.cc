// scontrol's job lists and `update job` words (job_words.h).
#include "ctl/scontrol/job_words.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "common/slurm/time_format.h"
#include "ctl/scontrol/job_update_keys.h"

namespace canopy::ctl::scontrol {
namespace {

constexpr int64_t kMaxNice = 2147483645;  // Slurm's NICE_OFFSET - 3

std::optional<JobTarget> ParseTarget(absl::string_view text) {
  JobTarget t;
  t.text = std::string(text);
  absl::string_view id = text;
  if (const size_t underscore = text.find('_'); underscore != absl::string_view::npos) {
    uint32_t task = 0;
    if (!absl::SimpleAtoi(text.substr(underscore + 1), &task)) {
      return std::nullopt;
    }
    t.task = task;
    id = text.substr(0, underscore);
  }
  if (!absl::SimpleAtoi(id, &t.job_id) || t.job_id == 0 || !absl::ascii_isdigit(id[0])) {
    return std::nullopt;
  }
  return t;
}

absl::Status Invalid(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("scontrol: error: ", what, "\nRequest aborted"));
}

// TimeLimit's value, as scontrol reads it: a Slurm time, seconds rounded up to whole minutes.
absl::StatusOr<absl::Duration> TimeValue(absl::string_view key, absl::string_view value) {
  absl::StatusOr<absl::Duration> d =
      slurm::ParseSlurmDuration(std::string_view(value.data(), value.size()));
  if (!d.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("scontrol: error: ", key,
                     ": expected minutes, MM:SS, HH:MM:SS, D-HH[:MM[:SS]] or "
                     "UNLIMITED, got '",
                     value, "'\nRequest aborted"));
  }
  if (*d == absl::InfiniteDuration()) {
    return *d;
  }
  return absl::Minutes(absl::ToInt64Minutes(*d + absl::Seconds(59)));
}

void SetDuration(absl::Duration d, google::protobuf::Duration& out) {
  out.set_seconds(absl::ToInt64Seconds(d));
}

}  // namespace

absl::StatusOr<JobList> ParseJobList(const std::vector<std::string>& words) {
  JobList list;
  for (const std::string& word : words) {
    if (absl::StartsWithIgnoreCase(word, "jobname=")) {
      list.job_name = word.substr(8);
      if (list.job_name.empty()) {
        return absl::InvalidArgumentError("Invalid job name specified: jobname= needs a name");
      }
      continue;
    }
    for (absl::string_view part : absl::StrSplit(word, ',', absl::SkipEmpty())) {
      std::optional<JobTarget> t = ParseTarget(part);
      if (!t.has_value()) {
        return absl::InvalidArgumentError(absl::StrCat("Invalid job id specified for job ", part));
      }
      list.targets.push_back(*t);
    }
  }
  if (!list.job_name.empty() && !list.targets.empty()) {
    return absl::InvalidArgumentError("give either job ids or jobname=NAME, not both");
  }
  if (list.job_name.empty() && list.targets.empty()) {
    return absl::InvalidArgumentError("Invalid job id specified: no job id given");
  }
  return list;
}

bool IsJobUpdate(const std::vector<std::string>& words) {
  if (words.empty()) {
    return false;
  }
  const std::string first = absl::AsciiStrToLower(words[0]);
  return first == "job" || first == "jobs" || absl::StartsWith(first, "jobid=") ||
         absl::StartsWith(first, "job=");
}

absl::StatusOr<JobUpdate> ParseJobUpdate(const std::vector<std::string>& words) {
  JobUpdate update;
  bool have_job = false;
  size_t i = 0;
  if (!words.empty()) {
    const std::string first = absl::AsciiStrToLower(words[0]);
    if (first == "job" || first == "jobs") {
      if (words.size() < 2) {
        return Invalid("update job needs a job id");
      }
      i = 1;  // "job ID": the id is the next word
      std::optional<JobTarget> t = ParseTarget(words[1]);
      if (!t.has_value()) {
        return absl::InvalidArgumentError(
            absl::StrCat("Invalid job id specified for job ", words[1]));
      }
      update.target = *t;
      have_job = true;
      ++i;
    }
  }
  bool changes = false;
  for (; i < words.size(); ++i) {
    const std::string& word = words[i];
    const size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Invalid(absl::StrCat("Invalid input: ", word));
    }
    // TimeLimit+=30 / TimeLimit-=30 change the current limit.
    char op = '\0';
    std::string key = absl::AsciiStrToLower(word.substr(0, eq));
    if (key.back() == '+' || key.back() == '-') {
      op = key.back();
      key.pop_back();
    }
    const std::string value = word.substr(eq + 1);
    if (op != '\0' && key != "timelimit") {
      return Invalid(absl::StrCat("Invalid input: ", word));
    }
    if (key == "jobid" || key == "job") {
      std::optional<JobTarget> t = ParseTarget(value);
      if (!t.has_value()) {
        return absl::InvalidArgumentError(absl::StrCat("Invalid job id specified for job ", value));
      }
      update.target = *t;
      have_job = true;
    } else if (key == "priority") {
      uint32_t priority = 0;
      if (!absl::SimpleAtoi(value, &priority) || priority == UINT32_MAX) {
        return Invalid(absl::StrCat(
            "Priority: expected a number from 0 (hold) to 4294967294, got '", value, "'"));
      }
      update.request.set_priority(priority);
      changes = true;
    } else if (key == "nice") {
      int64_t nice = 0;
      if (!absl::SimpleAtoi(value, &nice) || nice < -kMaxNice || nice > kMaxNice) {
        return Invalid(absl::StrCat("Nice: expected a number from -", kMaxNice, " to ", kMaxNice,
                                    ", got '", value, "'"));
      }
      update.request.set_nice(static_cast<int32_t>(nice));
      changes = true;
    } else if (key == "timelimit") {
      absl::StatusOr<absl::Duration> d = TimeValue("TimeLimit", value);
      if (!d.ok()) {
        return d.status();
      }
      if (op != '\0') {
        if (*d == absl::InfiniteDuration()) {
          return Invalid(absl::StrCat("TimeLimit", std::string(1, op),
                                      "=: expected a time to add or take away, got '", value, "'"));
        }
        SetDuration(op == '+' ? *d : -*d, *update.request.mutable_time_limit_change());
      } else if (*d == absl::InfiniteDuration()) {
        update.request.set_time_limit_unlimited(true);
      } else {
        SetDuration(*d, *update.request.mutable_time_limit());
      }
      changes = true;
    } else {
      absl::StatusOr<bool> applied = ApplyJobRequestKey(key, value, update.request);
      if (!applied.ok()) {
        return applied.status();
      }
      if (!*applied) {
        return Invalid(absl::StrCat("Update of this parameter is not supported: ", word));
      }
      changes = true;
    }
  }
  if (!have_job) {
    return Invalid("update job needs a job id (update job ID ... or update JobId=ID ...)");
  }
  if (!changes) {
    return Invalid("No changes specified");
  }
  return update;
}

}  // namespace canopy::ctl::scontrol
