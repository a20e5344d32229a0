// QOS records (qos.h).
#include "scheduler/limits/qos.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/slurm/time_format.h"

namespace canopy::limits {
namespace {

absl::Status Bad(absl::string_view key, absl::string_view what, absl::string_view value) {
  return absl::InvalidArgumentError(absl::StrCat(key, ": expected ", what, ", got '", value, "'"));
}

// -1 (clear) or a count.
absl::Status SetCount(absl::string_view key, absl::string_view value, int64_t& out) {
  int64_t n = 0;
  if (!absl::SimpleAtoi(value, &n) || n < -1) {
    return Bad(key, "a count, or -1 to clear the limit", value);
  }
  out = n;
  return absl::OkStatus();
}

absl::Status SetTres(absl::string_view key, absl::string_view value, slurm::TresLimits& out) {
  absl::StatusOr<slurm::TresLimits> parsed = slurm::ParseTresLimits(value, out);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(key, ": ", parsed.status().message()));
  }
  out = *parsed;
  return absl::OkStatus();
}

bool ValidName(absl::string_view name) {
  return !name.empty() && std::none_of(name.begin(), name.end(), [](char c) {
    return c == ',' || c == '\'' || c == '"' || c == '=' || absl::ascii_isspace(c);
  });
}

// A plain list replaces the old one; "+name" and "-name" add and remove one; "" clears.
absl::Status SetPreempt(absl::string_view value, std::vector<std::string>& out) {
  const absl::string_view trimmed = absl::StripAsciiWhitespace(value);
  if (trimmed.empty() || trimmed == "''") {
    out.clear();
    return absl::OkStatus();
  }
  std::vector<std::string> list = out;
  bool replaced = false;
  for (absl::string_view item : absl::StrSplit(value, ',', absl::SkipWhitespace())) {
    item = absl::StripAsciiWhitespace(item);
    if (absl::ConsumePrefix(&item, "-")) {
      list.erase(std::remove(list.begin(), list.end(), item), list.end());
      continue;
    }
    if (!absl::ConsumePrefix(&item, "+") && !replaced) {
      list.clear();
      replaced = true;
    }
    if (!ValidName(item)) {
      return Bad("Preempt", "a comma list of QOS names", value);
    }
    list.emplace_back(item);
  }
  std::sort(list.begin(), list.end());
  list.erase(std::unique(list.begin(), list.end()), list.end());
  out = std::move(list);
  return absl::OkStatus();
}

}  // namespace

absl::Status ApplyQosOption(absl::string_view key_in, absl::string_view value, QosSpec& spec) {
  const std::string key = absl::AsciiStrToLower(key_in);
  value = absl::StripAsciiWhitespace(value);
  if (key == "description") {
    spec.description = std::string(value);
  } else if (key == "priority") {
    uint32_t p = 0;
    if (!absl::SimpleAtoi(value, &p)) {
      return Bad(key_in, "a priority from 0 to 4294967295", value);
    }
    spec.priority = p;
  } else if (key == "maxtresperuser" || key == "maxtrespu") {
    return SetTres(key_in, value, spec.max_tres_per_user);
  } else if (key == "maxtresperjob" || key == "maxtres") {
    return SetTres(key_in, value, spec.max_tres_per_job);
  } else if (key == "grptres") {
    return SetTres(key_in, value, spec.grp_tres);
  } else if (key == "maxjobsperuser" || key == "maxjobspu") {
    return SetCount(key_in, value, spec.max_jobs_per_user);
  } else if (key == "grpjobs") {
    return SetCount(key_in, value, spec.grp_jobs);
  } else if (key == "maxwall" || key == "maxwalldurationperjob") {
    if (value == "-1") {
      spec.max_wall = absl::InfiniteDuration();
      return absl::OkStatus();
    }
    absl::StatusOr<absl::Duration> d = slurm::ParseSlurmDuration(std::string(value));
    if (!d.ok() || *d <= absl::ZeroDuration()) {
      return Bad(key_in, "a time limit such as 60, 4:00:00 or 2-00:00:00 (-1 clears it)", value);
    }
    spec.max_wall = *d;
  } else if (key == "preempt") {
    return SetPreempt(value, spec.preempt);
  } else if (key == "preemptmode") {
    if (value.empty() || absl::AsciiStrToLower(value) == "cluster") {
      spec.preempt_mode = slurm::PreemptMode::kCluster;
      return absl::OkStatus();
    }
    absl::StatusOr<slurm::PreemptMode> mode = slurm::ParsePreemptMode(value);
    if (!mode.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(key_in, ": ", mode.status().message()));
    }
    spec.preempt_mode = *mode;
  } else if (key == "gracetime") {
    int64_t s = 0;
    if (!absl::SimpleAtoi(value, &s) || s < 0) {
      return Bad(key_in, "a number of seconds", value);
    }
    spec.grace_time = absl::Seconds(s);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown QOS option '", key_in,
                     "' (expected Description, Priority, MaxTRESPerUser, MaxTRESPerJob, GrpTRES, "
                     "MaxJobsPerUser, GrpJobs, MaxWall, Preempt, PreemptMode or GraceTime)"));
  }
  return absl::OkStatus();
}

std::vector<std::pair<std::string, std::string>> QosOptions(const QosSpec& spec) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!spec.description.empty()) out.emplace_back("Description", spec.description);
  if (spec.priority != 0) out.emplace_back("Priority", absl::StrCat(spec.priority));
  if (spec.grace_time != absl::ZeroDuration()) {
    out.emplace_back("GraceTime", absl::StrCat(absl::ToInt64Seconds(spec.grace_time)));
  }
  if (spec.grp_jobs >= 0) out.emplace_back("GrpJobs", absl::StrCat(spec.grp_jobs));
  if (!spec.grp_tres.empty()) out.emplace_back("GrpTRES", slurm::FormatTresLimits(spec.grp_tres));
  if (spec.max_jobs_per_user >= 0) {
    out.emplace_back("MaxJobsPerUser", absl::StrCat(spec.max_jobs_per_user));
  }
  if (!spec.max_tres_per_job.empty()) {
    out.emplace_back("MaxTRESPerJob", slurm::FormatTresLimits(spec.max_tres_per_job));
  }
  if (!spec.max_tres_per_user.empty()) {
    out.emplace_back("MaxTRESPerUser", slurm::FormatTresLimits(spec.max_tres_per_user));
  }
  if (spec.max_wall != absl::InfiniteDuration()) {
    out.emplace_back("MaxWall", slurm::FormatSlurmDuration(spec.max_wall));
  }
  if (!spec.preempt.empty()) out.emplace_back("Preempt", absl::StrJoin(spec.preempt, ","));
  if (spec.preempt_mode != slurm::PreemptMode::kCluster) {
    out.emplace_back("PreemptMode", std::string(slurm::PreemptModeName(spec.preempt_mode)));
  }
  return out;
}

QosTable::QosTable() {
  QosSpec normal;
  normal.name = std::string(kNormalQos);
  specs_.push_back(std::move(normal));
  index_.emplace(kNormalQos, 0);
}

absl::StatusOr<QosTable> QosTable::Build(std::vector<QosSpec> specs) {
  std::sort(specs.begin(), specs.end(), [](const QosSpec& a, const QosSpec& b) {
    const bool an = a.name == kNormalQos;
    const bool bn = b.name == kNormalQos;
    return an != bn ? an : a.name < b.name;
  });
  QosTable t;
  t.specs_.clear();
  t.index_.clear();
  if (specs.empty() || specs.front().name != kNormalQos) {
    QosSpec normal;
    normal.name = std::string(kNormalQos);
    specs.insert(specs.begin(), std::move(normal));
  }
  for (QosSpec& spec : specs) {
    if (!ValidName(spec.name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("QOS '", spec.name,
                       "': a QOS name must be non-empty, without spaces, quotes, ',' or '='"));
    }
    if (!t.index_.emplace(spec.name, static_cast<int32_t>(t.specs_.size())).second) {
      return absl::InvalidArgumentError(absl::StrCat("QOS '", spec.name, "' is given twice"));
    }
    t.max_priority_ = std::max(t.max_priority_, spec.priority);
    t.specs_.push_back(std::move(spec));
  }
  for (const QosSpec& spec : t.specs_) {
    for (const std::string& p : spec.preempt) {
      if (p == spec.name) {
        return absl::InvalidArgumentError(
            absl::StrCat("QOS '", spec.name, "': Preempt may not name the QOS itself"));
      }
      if (!t.index_.contains(p)) {
        return absl::InvalidArgumentError(absl::StrCat("QOS '", spec.name, "': Preempt names QOS '",
                                                       p, "', which does not exist"));
      }
    }
  }
  return t;
}

const QosSpec* QosTable::Find(absl::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &specs_[it->second];
}

bool QosTable::MayPreempt(absl::string_view preemptor, absl::string_view victim) const {
  const QosSpec* p = Find(preemptor);
  return p != nullptr &&
         std::find(p->preempt.begin(), p->preempt.end(), victim) != p->preempt.end();
}

}  // namespace canopy::limits
