// The lifecycle's fair-share state (accounting.h).
#include "scheduler/lifecycle/accounting.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace canopy::lifecycle {
namespace {

fairshare::DecayOptions DecayFrom(const config::PriorityConfig& p) {
  fairshare::DecayOptions d;
  d.half_life = p.decay_half_life;
  d.reset = p.usage_reset_period;
  return d;
}

const config::PartitionConfig* FindPartition(const config::ClusterConfig& config,
                                             absl::string_view name) {
  for (const config::PartitionConfig& p : config.partitions) {
    if (p.name == name) {
      return &p;
    }
  }
  return nullptr;
}

// The GPU type of a node (its first kind of GPU; "" for untyped or no GPUs).
absl::string_view NodeGpuType(const config::ClusterConfig& config, core::NodeId node) {
  if (node.value() < 0 || static_cast<size_t>(node.value()) >= config.nodes.size()) {
    return "";
  }
  const std::vector<config::GpuConfig>& gpus = config.nodes[node.value()].gpus;
  return gpus.empty() ? absl::string_view() : absl::string_view(gpus.front().type);
}

}  // namespace

Accounting::Accounting(std::shared_ptr<const config::ClusterConfig> config, absl::Time now)
    : config_(std::move(config)), ledger_(DecayFrom(config_->scheduling.priority), now) {
  const config::PriorityConfig& p = config_->scheduling.priority;
  fair_share_options_.algorithm = p.flags.no_fair_tree ? fairshare::FairShareAlgorithm::kClassic
                                                       : fairshare::FairShareAlgorithm::kFairTree;
  fair_share_options_.dampening = static_cast<double>(p.fairshare_dampening_factor);
  weights_.age = p.weight_age;
  weights_.fairshare = p.weight_fairshare;
  weights_.job_size = p.weight_job_size;
  weights_.partition = p.weight_partition;
  weights_.qos = p.weight_qos;
  weights_.max_age = p.max_age;
  weights_.favor_small = p.favor_small;
  cluster_nodes_ = std::max<int64_t>(1, static_cast<int64_t>(config_->nodes.size()));
  int64_t cpus = 0;
  for (const config::NodeConfig& n : config_->nodes) {
    cpus += n.cpus;
  }
  cluster_cpus_ = std::max<int64_t>(1, cpus);
  for (const config::PartitionConfig& part : config_->partitions) {
    max_partition_factor_ = std::max(max_partition_factor_, part.policy.priority_job_factor);
  }
  RecomputeShares(now);
  next_calc_ = now + p.calc_period;
}

void Accounting::SetTree(fairshare::AssociationTree tree, absl::Time now) {
  tree_ = std::move(tree);
  associations_changed = true;
  RecomputeShares(now);
}

absl::StatusOr<std::string> Accounting::ResolveAccount(absl::string_view user,
                                                       absl::string_view requested) const {
  std::string account = requested.empty() ? tree_.DefaultAccount(user) : std::string(requested);
  if (!config_->scheduling.accounting.enforce.associations) {
    return account;
  }
  if (account.empty() || tree_.FindUser(user, account) < 0) {
    // sbatch prints this line after "sbatch: error: ", as Slurm's does.
    return absl::InvalidArgumentError(
        "Batch job submission failed: Invalid account or account/partition combination "
        "specified");
  }
  return account;
}

double Accounting::BillingRate(const core::Job& job) const {
  const config::PartitionConfig* part = FindPartition(*config_, job.partition);
  static const slurm::BillingWeights kDefault;
  const slurm::BillingWeights& weights = part != nullptr ? part->policy.billing : kDefault;
  const bool max_tres = config_->scheduling.priority.flags.max_tres;
  double rate = 0;
  for (const core::NodeShare& share : job.allocation.nodes) {
    rate += weights.NodeRate(share.cpus, share.mem_mib, share.gpus,
                             NodeGpuType(*config_, share.node), max_tres);
  }
  return rate;
}

void Accounting::Observe(const core::Job& job, absl::Time now) {
  auto it = charging_.find(job.id);
  const bool running = job.state == core::JobState::kRunning;
  if (running && it == charging_.end()) {
    Charge c;
    c.account = job.spec->account;
    c.user = job.user_name;
    c.rate = BillingRate(job);
    c.since = job.start_time != absl::InfinitePast() ? std::min(job.start_time, now) : now;
    charging_.emplace(job.id, std::move(c));
  } else if (!running && it != charging_.end()) {
    const Charge& c = it->second;
    if (now > c.since && c.rate > 0) {
      ledger_.Charge(c.account, c.user, c.rate, c.since, now);
      usage_changed = true;
    }
    charging_.erase(it);
  }
}

void Accounting::ChargeRunning(absl::Time now) {
  for (auto& [id, c] : charging_) {
    if (now > c.since) {
      if (c.rate > 0) {
        ledger_.Charge(c.account, c.user, c.rate, c.since, now);
      }
      c.since = now;
    }
  }
  ledger_.AdvanceTo(now);
  charged_through_ = now;
  usage_changed = true;
}

persistence::UsageState Accounting::SaveUsage(absl::Time now) const {
  persistence::UsageState out;
  out.ledger = ledger_.Save(now);
  out.charged_through = charged_through_;
  return out;
}

void Accounting::RestoreUsage(const std::optional<persistence::UsageState>& usage, absl::Time now) {
  if (usage.has_value()) {
    ledger_ = fairshare::UsageLedger::Restore(ledger_.options(), usage->ledger);
    charged_through_ = usage->charged_through;
  }
  ledger_.AdvanceTo(now);
  RecomputeShares(now);
}

void Accounting::ResumeCharging(const core::Job& job) {
  if (job.state != core::JobState::kRunning) {
    return;
  }
  Charge c;
  c.account = job.spec->account;
  c.user = job.user_name;
  c.rate = BillingRate(job);
  c.since = std::max(job.start_time, charged_through_);
  charging_[job.id] = std::move(c);
}

void Accounting::RecomputeShares(absl::Time now) {
  shares_ = fairshare::ComputeFairShare(tree_, ledger_, now, fair_share_options_);
  shares_time_ = now;
  ++version;
}

double Accounting::FairShareOf(const core::Job& job) const {
  const int32_t node = tree_.FindUser(job.user_name, job.spec->account);
  if (node < 0 || static_cast<size_t>(node) >= shares_.size()) {
    return 0;
  }
  return shares_[node].fairshare;
}

fairshare::Priority Accounting::PriorityOf(const core::Job& job, absl::Time now) const {
  fairshare::PriorityContext context;
  context.now = now;
  context.fairshare = FairShareOf(job);
  context.cluster_nodes = cluster_nodes_;
  context.cluster_cpus = cluster_cpus_;
  const config::PartitionConfig* part = FindPartition(*config_, job.partition);
  context.partition = part != nullptr ? static_cast<double>(part->policy.priority_job_factor) /
                                            static_cast<double>(max_partition_factor_)
                                      : 0;
  if (const limits::QosSpec* q = qos_->Find(job.qos); q != nullptr && qos_->max_priority() > 0) {
    context.qos = static_cast<double>(q->priority) / static_cast<double>(qos_->max_priority());
  }
  return fairshare::Weigh(fairshare::ComputeFactors(job, context, weights_), weights_,
                          job.spec->nice);
}

uint32_t Accounting::ComputePriority(const core::Job& job, absl::Time now) const {
  if (job.state == core::JobState::kPending && (job.reason == core::JobReason::kJobHeldUser ||
                                                job.reason == core::JobReason::kJobHeldAdmin)) {
    return 0;  // as Slurm shows a held job (squeue %Q, scontrol show job)
  }
  if (job.priority_fixed) {
    return job.priority;
  }
  if (!multifactor()) {
    return kBasicPriorityTop - std::min(job.id.value(), kBasicPriorityTop - 1);
  }
  return PriorityOf(job, now).total;
}

}  // namespace canopy::lifecycle
