#include "scheduler/server/config_view.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "common/slurm/limit_values.h"
#include "common/slurm/scheduling_values.h"
#include "common/slurm/time_format.h"

namespace canopy::server {
namespace {

// scontrol's "300 sec" for timeouts kept in whole seconds.
std::string Seconds(absl::Duration d) { return absl::StrCat(absl::ToInt64Seconds(d), " sec"); }

// scontrol's "7-00:00:00" / "00:05:00" for the priority periods.
std::string DayClock(absl::Duration d) {
  int64_t s = absl::ToInt64Seconds(d);
  const int64_t days = s / 86400;
  s %= 86400;
  const std::string clock = absl::StrFormat("%02d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
  return days > 0 ? absl::StrCat(days, "-", clock) : clock;
}

std::string OrNull(const std::string& value) { return value.empty() ? "(null)" : value; }

std::string YesNo(bool b) { return b ? "Yes" : "No"; }

std::string Enforce(const slurm::AccountingEnforce& e) {
  std::vector<std::string> parts;
  if (e.associations) parts.push_back("associations");
  if (e.limits) parts.push_back("limits");
  if (e.qos) parts.push_back("qos");
  if (e.safe) parts.push_back("safe");
  return parts.empty() ? "none" : absl::StrJoin(parts, ",");
}

std::string ResetPeriod(slurm::UsageResetPeriod p) {
  switch (p) {
    case slurm::UsageResetPeriod::kNone:
      return "NONE";
    case slurm::UsageResetPeriod::kNow:
      return "NOW";
    case slurm::UsageResetPeriod::kDaily:
      return "DAILY";
    case slurm::UsageResetPeriod::kWeekly:
      return "WEEKLY";
    case slurm::UsageResetPeriod::kMonthly:
      return "MONTHLY";
    case slurm::UsageResetPeriod::kQuarterly:
      return "QUARTERLY";
    case slurm::UsageResetPeriod::kYearly:
      return "YEARLY";
  }
  return "NONE";
}

// The parameters that differ from Slurm's defaults, then the ones Canopy keeps as written.
std::string SchedulerParams(const slurm::SchedulerParameters& p) {
  const slurm::SchedulerParameters defaults;
  std::vector<std::string> parts;
  if (p.bf_window != defaults.bf_window) {
    parts.push_back(absl::StrCat("bf_window=", absl::ToInt64Minutes(p.bf_window)));
  }
  if (p.bf_max_job_test != defaults.bf_max_job_test) {
    parts.push_back(absl::StrCat("bf_max_job_test=", p.bf_max_job_test));
  }
  if (p.bf_resolution != defaults.bf_resolution) {
    parts.push_back(absl::StrCat("bf_resolution=", absl::ToInt64Seconds(p.bf_resolution)));
  }
  if (p.bf_interval != defaults.bf_interval) {
    parts.push_back(absl::StrCat("bf_interval=", absl::ToInt64Seconds(p.bf_interval)));
  }
  if (p.max_switch_wait != defaults.max_switch_wait) {
    parts.push_back(absl::StrCat("max_switch_wait=", absl::ToInt64Seconds(p.max_switch_wait)));
  }
  if (p.max_script_size != defaults.max_script_size) {
    parts.push_back(absl::StrCat("max_script_size=", p.max_script_size));
  }
  parts.insert(parts.end(), p.other.begin(), p.other.end());
  return OrNull(absl::StrJoin(parts, ","));
}

std::string DependencyParams(const slurm::DependencyParameters& p) {
  std::vector<std::string> parts;
  if (p.kill_invalid_depend) {
    parts.push_back("kill_invalid_depend");
  }
  parts.insert(parts.end(), p.other.begin(), p.other.end());
  return OrNull(absl::StrJoin(parts, ","));
}

std::string PriorityFlagNames(const slurm::PriorityFlags& f) {
  std::vector<std::string> parts;
  if (f.no_fair_tree) parts.push_back("NO_FAIR_TREE");
  if (f.max_tres) parts.push_back("MAX_TRES");
  return absl::StrJoin(parts, ",");
}

}  // namespace

std::vector<std::pair<std::string, std::string>> ConfigEntries(const config::ClusterConfig& c,
                                                               const ConfigFacts& facts) {
  const config::SchedulingPolicy& s = c.scheduling;
  const config::PriorityConfig& p = s.priority;
  std::vector<std::pair<std::string, std::string>> e;
  e.emplace_back("AccountingStorageEnforce", Enforce(s.accounting.enforce));
  e.emplace_back("BatchStartTimeout", Seconds(c.launch_timeout));
  // In the standard form: SLURM_TIME_FORMAT is the reader's, and this is canopyd's text.
  e.emplace_back("BOOT_TIME", slurm::FormatSlurmTimestamp(facts.boot_time, absl::LocalTimeZone(),
                                                          slurm::SlurmTimeFormat(), absl::Now()));
  e.emplace_back("ClusterName", c.cluster_name);
  e.emplace_back("DependencyParameters", DependencyParams(s.scheduler.dependency));
  e.emplace_back("FairShareDampeningFactor", absl::StrCat(p.fairshare_dampening_factor));
  e.emplace_back("KillWait", Seconds(c.kill_wait));
  e.emplace_back("MaxArraySize", absl::StrCat(s.scheduler.max_array_size));
  e.emplace_back("MaxJobCount", absl::StrCat(s.scheduler.max_job_count));
  e.emplace_back("MinJobAge", Seconds(c.min_job_age));
  e.emplace_back("NEXT_JOB_ID", absl::StrCat(facts.next_job_id));
  e.emplace_back("PreemptMode", std::string(slurm::PreemptModeName(s.preempt.mode)));
  e.emplace_back("PreemptType", std::string(slurm::PreemptTypeName(s.preempt.type)));
  e.emplace_back("PriorityDecayHalfLife", DayClock(p.decay_half_life));
  e.emplace_back("PriorityCalcPeriod", DayClock(p.calc_period));
  e.emplace_back("PriorityFavorSmall", YesNo(p.favor_small));
  e.emplace_back("PriorityFlags", PriorityFlagNames(p.flags));
  e.emplace_back("PriorityMaxAge", DayClock(p.max_age));
  e.emplace_back("PriorityUsageResetPeriod", ResetPeriod(p.usage_reset_period));
  e.emplace_back("PriorityType", p.multifactor ? "priority/multifactor" : "priority/basic");
  e.emplace_back("PriorityWeightAge", absl::StrCat(p.weight_age));
  e.emplace_back("PriorityWeightFairShare", absl::StrCat(p.weight_fairshare));
  e.emplace_back("PriorityWeightJobSize", absl::StrCat(p.weight_job_size));
  e.emplace_back("PriorityWeightPartition", absl::StrCat(p.weight_partition));
  e.emplace_back("PriorityWeightQOS", absl::StrCat(p.weight_qos));
  e.emplace_back("PrivateData", s.accounting.private_data.empty()
                                    ? "none"
                                    : absl::StrJoin(s.accounting.private_data, ","));
  e.emplace_back("SchedulerParameters", SchedulerParams(s.scheduler.parameters));
  e.emplace_back("SchedulerType", s.scheduler.backfill ? "sched/backfill" : "sched/builtin");
  e.emplace_back("SlurmctldHost[0]", OrNull(c.controller_host));
  e.emplace_back("SlurmctldPort", absl::StrCat(c.controller_port));
  e.emplace_back("SlurmdTimeout", Seconds(c.node_timeout));
  e.emplace_back("SLURM_CONF", c.path);
  e.emplace_back("SLURM_VERSION", facts.version);
  e.emplace_back("StateSaveLocation", c.state_dir);
  e.emplace_back("TopologyPlugin", c.topology_plugin.empty() ? "topology/none" : c.topology_plugin);
  return e;
}

}  // namespace canopy::server
