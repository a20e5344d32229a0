// What running jobs hold against limits (limit_usage.h).
#include "scheduler/limits/limit_usage.h"

#include <array>

#include "absl/strings/str_cat.h"
#include "common/slurm/time_format.h"

namespace canopy::limits {
namespace {

using core::JobReason;

// One TRES of a limit: how to read it, its name in messages, and the reasons per scope.
struct TresKind {
  int64_t Tres::*held;
  int64_t slurm::TresLimits::*limit;
  const char* name;  // as sacctmgr writes it
  const char* unit;  // in messages
  JobReason qos_per_user;
  JobReason qos_group;
  JobReason qos_per_job;
  JobReason assoc_group;
  JobReason assoc_per_job;
};

// Checked in this order; the first limit hit gives the reason, as in Slurm (GRES before CPU).
// clang-format off
constexpr std::array<TresKind, 4> kKinds = {{
  {&Tres::gpus, &slurm::TresLimits::gpus, "gres/gpu", "GPUs",
   JobReason::kQOSMaxGRESPerUser, JobReason::kQOSGrpGRES, JobReason::kQOSMaxGRESPerJob,
   JobReason::kAssocGrpGRES, JobReason::kAssocMaxGRESPerJob},
  {&Tres::cpus, &slurm::TresLimits::cpus, "cpu", "CPUs",
   JobReason::kQOSMaxCpuPerUserLimit, JobReason::kQOSGrpCpuLimit, JobReason::kQOSMaxCpuPerJobLimit,
   JobReason::kAssocGrpCpuLimit, JobReason::kAssocMaxCpuPerJobLimit},
  {&Tres::nodes, &slurm::TresLimits::nodes, "node", "nodes",
   JobReason::kQOSMaxNodePerUserLimit, JobReason::kQOSGrpNodeLimit,
   JobReason::kQOSMaxNodePerJobLimit, JobReason::kAssocGrpNodeLimit,
   JobReason::kAssocMaxNodePerJobLimit},
  {&Tres::mem_mib, &slurm::TresLimits::mem_mib, "mem", "MiB of memory",
   JobReason::kQOSMaxMemoryPerUser, JobReason::kQOSGrpMemLimit, JobReason::kQOSMaxMemoryPerJob,
   JobReason::kAssocGrpMemLimit, JobReason::kAssocMaxMemoryPerJob},
}};
// clang-format on

// The first TRES of `limits` that `held + asked` goes over; nullptr if none.
const TresKind* Over(const slurm::TresLimits& limits, const Tres& held, const Tres& asked) {
  for (const TresKind& k : kKinds) {
    const int64_t limit = limits.*k.limit;
    if (limit >= 0 && held.*k.held + asked.*k.held > limit) {
      return &k;
    }
  }
  return nullptr;
}

// A limit hit: its reason and, for messages, what it is.
struct Hit {
  JobReason reason = JobReason::kNone;
  std::string what;  // "QOS 'normal' MaxTRESPerUser gres/gpu=64"
  std::string held;  // "alice's running jobs hold 60 GPUs" ("" for per-job limits)
};

std::string Limit(const TresKind& k, const slurm::TresLimits& l) {
  return absl::StrCat(k.name, "=", l.*k.limit);
}

}  // namespace

Tres TresOfRequest(const core::ResourceRequest& request) {
  Tres t;
  t.nodes = request.min_nodes;
  t.gpus = int64_t{request.min_nodes} * request.gpus_per_node;
  t.cpus = int64_t{request.min_nodes} * request.cpus_per_node;
  t.mem_mib = int64_t{request.min_nodes} * request.mem_per_node_mib;
  t.jobs = 1;
  return t;
}

Tres TresOfShares(absl::Span<const core::NodeShare> shares) {
  Tres t;
  t.nodes = static_cast<int64_t>(shares.size());
  for (const core::NodeShare& s : shares) {
    t.gpus += s.gpus;
    t.cpus += s.cpus;
    t.mem_mib += s.mem_mib;
  }
  t.jobs = 1;
  return t;
}

int32_t LimitRules::AssociationOf(const core::Job& job) const {
  return tree->FindUser(job.user_name, job.spec->account);
}

void LimitUsage::Held::Add(const Tres& t, int sign) {
  tres.gpus += sign * t.gpus;
  tres.cpus += sign * t.cpus;
  tres.nodes += sign * t.nodes;
  tres.mem_mib += sign * t.mem_mib;
  tres.jobs += sign * t.jobs;
}

LimitUsage::LimitUsage(std::shared_ptr<const LimitRules> rules) : rules_(std::move(rules)) {}

void LimitUsage::SetRules(std::shared_ptr<const LimitRules> rules) {
  rules_ = std::move(rules);
  by_qos_.clear();
  by_qos_user_.clear();
  by_association_.clear();
  // The association of a (user, account) may have moved or gone: find it again.
  absl::flat_hash_map<core::JobId, Counted> old = std::move(counted_);
  counted_.clear();
  for (auto& [id, c] : old) {
    Apply(c, +1);
    counted_.emplace(id, std::move(c));
  }
}

void LimitUsage::Apply(const Counted& c, int sign) {
  by_qos_[c.qos].Add(c.tres, sign);
  by_qos_user_[{c.qos, c.user_id}].Add(c.tres, sign);
  for (int32_t a = c.association; a >= 0; a = rules_->tree->node(a).parent) {
    by_association_[a].Add(c.tres, sign);
  }
}

void LimitUsage::Add(const core::Job& job, absl::Span<const core::NodeShare> shares) {
  if (!rules_->enforce || counted_.contains(job.id)) {
    return;
  }
  Counted c;
  c.qos = job.qos;
  c.user_id = job.user_id;
  c.association = rules_->AssociationOf(job);
  c.tres = TresOfShares(shares);
  Apply(c, +1);
  counted_.emplace(job.id, std::move(c));
}

void LimitUsage::Remove(core::JobId job) {
  if (counted_.empty()) {
    return;
  }
  auto it = counted_.find(job);
  if (it == counted_.end()) {
    return;
  }
  Apply(it->second, -1);
  counted_.erase(it);
}

namespace {

// Every limit `job` would break if it started now on top of what is held (`alone`: on top of
// nothing, for the submit check). Stops at the first.
template <typename HeldOf>
Hit FirstHit(const LimitRules& rules, const core::Job& job, bool alone, HeldOf held_of) {
  Hit hit;
  const Tres asked = TresOfRequest(job.resources);
  const Tres none;
  const QosSpec* qos = rules.qos->Find(job.qos);
  const int32_t assoc = rules.AssociationOf(job);
  // Per job: MaxTRESPerJob, MaxWall.
  if (qos != nullptr) {
    if (const TresKind* k = Over(qos->max_tres_per_job, none, asked)) {
      return {
          k->qos_per_job,
          absl::StrCat("QOS '", qos->name, "' MaxTRESPerJob ", Limit(*k, qos->max_tres_per_job)),
          absl::StrCat("the job asks for ", asked.*k->held, " ", k->unit)};
    }
    if (job.time_limit > qos->max_wall) {
      return {
          JobReason::kQOSMaxWallDurationPerJobLimit,
          absl::StrCat("QOS '", qos->name, "' MaxWall ", slurm::FormatSlurmDuration(qos->max_wall)),
          absl::StrCat("the job's time limit is ", slurm::FormatSlurmDuration(job.time_limit))};
    }
  }
  if (assoc >= 0) {
    const AssociationLimits& l = rules.associations[assoc];
    if (const TresKind* k = Over(l.max_tres_per_job, none, asked)) {
      return {k->assoc_per_job,
              absl::StrCat("account '", job.spec->account, "' MaxTRESPerJob ",
                           Limit(*k, l.max_tres_per_job)),
              absl::StrCat("the job asks for ", asked.*k->held, " ", k->unit)};
    }
    if (job.time_limit > l.max_wall) {
      return {JobReason::kAssocMaxWallDurationPerJobLimit,
              absl::StrCat("account '", job.spec->account, "' MaxWall ",
                           slurm::FormatSlurmDuration(l.max_wall)),
              absl::StrCat("the job's time limit is ", slurm::FormatSlurmDuration(job.time_limit))};
    }
  }
  auto holds = [&](const Tres& t, const TresKind& k, absl::string_view whose) {
    return alone ? absl::StrCat("the job asks for ", asked.*k.held, " ", k.unit)
                 : absl::StrCat(whose, " hold ", t.*k.held, " ", k.unit, ", the job asks for ",
                                asked.*k.held);
  };
  // The QOS: per user, then the whole QOS.
  if (qos != nullptr) {
    const Tres user = alone ? none : held_of.qos_user(qos->name, job.user_id);
    if (const TresKind* k = Over(qos->max_tres_per_user, user, asked)) {
      return {
          k->qos_per_user,
          absl::StrCat("QOS '", qos->name, "' MaxTRESPerUser ", Limit(*k, qos->max_tres_per_user)),
          holds(user, *k, absl::StrCat(job.user_name, "'s running jobs"))};
    }
    if (qos->max_jobs_per_user >= 0 && user.jobs + 1 > qos->max_jobs_per_user) {
      return {JobReason::kQOSMaxJobsPerUserLimit,
              absl::StrCat("QOS '", qos->name, "' MaxJobsPerUser=", qos->max_jobs_per_user),
              absl::StrCat(job.user_name, " runs ", user.jobs, " jobs")};
    }
    const Tres group = alone ? none : held_of.qos(qos->name);
    if (const TresKind* k = Over(qos->grp_tres, group, asked)) {
      return {k->qos_group,
              absl::StrCat("QOS '", qos->name, "' GrpTRES ", Limit(*k, qos->grp_tres)),
              holds(group, *k, "its running jobs")};
    }
    if (qos->grp_jobs >= 0 && group.jobs + 1 > qos->grp_jobs) {
      return {JobReason::kQOSGrpJobsLimit,
              absl::StrCat("QOS '", qos->name, "' GrpJobs=", qos->grp_jobs),
              absl::StrCat("it runs ", group.jobs, " jobs")};
    }
  }
  // The association: its MaxJobs, then GrpTRES/GrpJobs of it and every account above it.
  if (assoc >= 0) {
    const AssociationLimits& own = rules.associations[assoc];
    const Tres mine = alone ? none : held_of.association(assoc);
    if (own.max_jobs >= 0 && mine.jobs + 1 > own.max_jobs) {
      return {JobReason::kAssocMaxJobsLimit,
              absl::StrCat("association of ", job.user_name, " in account '", job.spec->account,
                           "' MaxJobs=", own.max_jobs),
              absl::StrCat(job.user_name, " runs ", mine.jobs, " jobs there")};
    }
    for (int32_t a = assoc; a >= 0; a = rules.tree->node(a).parent) {
      const AssociationLimits& l = rules.associations[a];
      const fairshare::AssociationSpec& spec = rules.tree->node(a).spec;
      const std::string name = spec.is_user() ? absl::StrCat("association of ", spec.user,
                                                             " in account '", spec.account, "'")
                                              : absl::StrCat("account '", spec.account, "'");
      const Tres group = alone ? none : held_of.association(a);
      if (const TresKind* k = Over(l.grp_tres, group, asked)) {
        return {k->assoc_group, absl::StrCat(name, " GrpTRES ", Limit(*k, l.grp_tres)),
                holds(group, *k, "its running jobs")};
      }
      if (l.grp_jobs >= 0 && group.jobs + 1 > l.grp_jobs) {
        return {JobReason::kAssocGrpJobsLimit, absl::StrCat(name, " GrpJobs=", l.grp_jobs),
                absl::StrCat("it runs ", group.jobs, " jobs")};
      }
    }
  }
  return hit;
}

}  // namespace

JobReason LimitUsage::Check(const core::Job& job, std::string* detail) const {
  if (!rules_->enforce) {
    return JobReason::kNone;
  }
  struct HeldOf {
    const LimitUsage& u;
    Tres qos_user(const std::string& q, uint32_t uid) const {
      auto it = u.by_qos_user_.find(std::make_pair(q, uid));
      return it == u.by_qos_user_.end() ? Tres{} : it->second.tres;
    }
    Tres qos(const std::string& q) const {
      auto it = u.by_qos_.find(q);
      return it == u.by_qos_.end() ? Tres{} : it->second.tres;
    }
    Tres association(int32_t a) const {
      auto it = u.by_association_.find(a);
      return it == u.by_association_.end() ? Tres{} : it->second.tres;
    }
  };
  Hit hit = FirstHit(*rules_, job, /*alone=*/false, HeldOf{*this});
  if (detail != nullptr && hit.reason != JobReason::kNone) {
    *detail = absl::StrCat(hit.what, ": ", hit.held);
  }
  return hit.reason;
}

absl::Status LimitUsage::NeverRunnable(const core::Job& job) const {
  if (!rules_->enforce) {
    return absl::OkStatus();
  }
  struct Nothing {
    Tres qos_user(const std::string&, uint32_t) const { return {}; }
    Tres qos(const std::string&) const { return {}; }
    Tres association(int32_t) const { return {}; }
  };
  Hit hit = FirstHit(*rules_, job, /*alone=*/true, Nothing{});
  if (hit.reason == JobReason::kNone) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(
      absl::StrCat(hit.what, ": ", hit.held, " (", core::JobReasonName(hit.reason), ")"));
}

}  // namespace canopy::limits
