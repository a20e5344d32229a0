// Association limits from sacctmgr options (association_limits.h).
#include "scheduler/limits/association_limits.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/slurm/time_format.h"

namespace canopy::limits {
namespace {

std::string Name(const fairshare::AssociationSpec& spec) {
  return spec.is_user() ? absl::StrCat("user '", spec.user, "' of account '", spec.account, "'")
                        : absl::StrCat("account '", spec.account, "'");
}

absl::Status Bad(const fairshare::AssociationSpec& spec, absl::string_view key,
                 absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(Name(spec), ": ", key, ": ", message));
}

// The first of `keys` the association sets, or nullptr.
const std::string* Option(const fairshare::AssociationSpec& spec,
                          std::initializer_list<absl::string_view> keys, absl::string_view* found) {
  for (absl::string_view k : keys) {
    if (const std::string* v = spec.Attribute(k); v != nullptr) {
      *found = k;
      return v;
    }
  }
  return nullptr;
}

absl::Status ReadCount(const fairshare::AssociationSpec& spec,
                       std::initializer_list<absl::string_view> keys, int64_t& out) {
  absl::string_view key;
  const std::string* v = Option(spec, keys, &key);
  if (v == nullptr) {
    return absl::OkStatus();
  }
  int64_t n = 0;
  if (!absl::SimpleAtoi(*v, &n) || n < -1) {
    return Bad(spec, key, absl::StrCat("expected a count (-1 = no limit), got '", *v, "'"));
  }
  out = n;
  return absl::OkStatus();
}

absl::Status ReadTres(const fairshare::AssociationSpec& spec,
                      std::initializer_list<absl::string_view> keys, slurm::TresLimits& out) {
  absl::string_view key;
  const std::string* v = Option(spec, keys, &key);
  if (v == nullptr) {
    return absl::OkStatus();
  }
  absl::StatusOr<slurm::TresLimits> t = slurm::ParseTresLimits(*v, out);
  if (!t.ok()) {
    return Bad(spec, key, t.status().message());
  }
  out = *t;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<AssociationLimits>> LimitsOfTree(const fairshare::AssociationTree& tree,
                                                            const QosTable& qos) {
  std::vector<AssociationLimits> out(tree.size());
  // Nodes are stored parents first, so each inherits from an already computed parent.
  for (size_t i = 0; i < tree.size(); ++i) {
    const fairshare::AssociationTree::Node& node = tree.node(static_cast<int32_t>(i));
    AssociationLimits& l = out[i];
    if (node.parent >= 0) {
      const AssociationLimits& p = out[node.parent];
      l.max_jobs = p.max_jobs;
      l.max_submit_jobs = p.max_submit_jobs;
      l.max_tres_per_job = p.max_tres_per_job;
      l.max_wall = p.max_wall;
      l.qos = p.qos;
      l.default_qos = p.default_qos;
    }
    const fairshare::AssociationSpec& spec = node.spec;
    if (absl::Status s = ReadTres(spec, {"GrpTRES"}, l.grp_tres); !s.ok()) return s;
    if (absl::Status s = ReadCount(spec, {"GrpJobs"}, l.grp_jobs); !s.ok()) return s;
    if (absl::Status s = ReadCount(spec, {"MaxJobs"}, l.max_jobs); !s.ok()) return s;
    if (absl::Status s = ReadCount(spec, {"MaxSubmitJobs", "MaxSubmit"}, l.max_submit_jobs);
        !s.ok()) {
      return s;
    }
    if (absl::Status s = ReadTres(spec, {"MaxTRESPerJob", "MaxTRES"}, l.max_tres_per_job);
        !s.ok()) {
      return s;
    }
    absl::string_view key;
    if (const std::string* v = Option(spec, {"MaxWall", "MaxWallDurationPerJob"}, &key)) {
      if (*v == "-1") {
        l.max_wall = absl::InfiniteDuration();
      } else {
        absl::StatusOr<absl::Duration> d = slurm::ParseSlurmDuration(*v);
        if (!d.ok() || *d <= absl::ZeroDuration()) {
          return Bad(
              spec, key,
              absl::StrCat("expected a time limit such as 60 or 2-00:00:00, got '", *v, "'"));
        }
        l.max_wall = *d;
      }
    }
    if (const std::string* v = Option(spec, {"QOS"}, &key)) {
      l.qos.clear();
      for (absl::string_view q : absl::StrSplit(*v, ',', absl::SkipWhitespace())) {
        q = absl::StripAsciiWhitespace(q);
        absl::ConsumePrefix(&q, "+");
        if (qos.Find(q) == nullptr) {
          return Bad(spec, key, absl::StrCat("QOS '", q, "' does not exist"));
        }
        l.qos.emplace_back(q);
      }
    }
    if (const std::string* v = Option(spec, {"DefaultQOS"}, &key)) {
      if (qos.Find(*v) == nullptr) {
        return Bad(spec, key, absl::StrCat("QOS '", *v, "' does not exist"));
      }
      l.default_qos = *v;
    }
    if (!l.default_qos.empty() && !l.qos.empty() &&
        std::find(l.qos.begin(), l.qos.end(), l.default_qos) == l.qos.end()) {
      return Bad(spec, "DefaultQOS",
                 absl::StrCat("'", l.default_qos, "' is not in the association's QOS list"));
    }
  }
  return out;
}

}  // namespace canopy::limits
