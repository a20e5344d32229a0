// One scheduling pass (pass.h).
#include "scheduler/plan/pass.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "scheduler/limits/pass_limits.h"
#include "scheduler/placement/eligibility.h"
#include "scheduler/plan/backfill.h"
#include "scheduler/plan/pass_util.h"

namespace canopy::plan {
namespace {

using internal::FreeGpusOnOpenNodes;
using internal::HasShape;
using internal::KeyOf;
using internal::ShapeKey;
using internal::ToJobReason;
using placement::CapacityView;
using placement::PlacementRequest;
using placement::PlacementResult;

// What the first job of a failed shape learned, reused for the rest of that shape.
struct ShapeFailure {
  core::JobReason reason;
  bool infeasible;
  std::string detail;
};

}  // namespace

RunningJob RunningJobOf(const core::Job& job, absl::Time now) {
  RunningJob r;
  r.job = job.id;
  r.nodes = job.allocation.nodes;
  r.exclusive = job.allocation.exclusive;
  switch (job.state) {
    case core::JobState::kCompleting:
      r.end = now;  // ending: back once its nodes clean up
      break;
    case core::JobState::kConfiguring:
      // Its limit counts from RUNNING, which comes after the launch is confirmed.
      r.end = std::max(job.start_time, now) + job.time_limit;
      break;
    default:
      r.end = job.start_time + job.time_limit;
      break;
  }
  return r;
}

int32_t MinUnitsPossible(const CapacityView& view, const PlacementRequest& request,
                         absl::Time now) {
  placement::ResolvedRequest r;
  if (placement::ResolveRequest(view, request, now, r).has_value()) {
    return -1;
  }
  placement::EligibleSet es;
  placement::CollectEligible(view, r, /*prune=*/true, es);
  const int32_t target = placement::TargetNodeCount(view.domains(), es, r);
  std::vector<int32_t> scratch;
  int32_t best = -1;
  for (int root : view.domains().roots()) {
    if (es.count(root) < target || !placement::HoldsRequired(es, r, root)) {
      continue;
    }
    const int32_t m = placement::MinUnits(view.domains(), es, root, target, scratch);
    if (m >= 0 && (best < 0 || m < best)) {
      best = m;
    }
  }
  return best;
}

Plan RunPass(const CapacityView& view, absl::Span<const RunningJob> running,
             absl::Span<const core::Job* const> pending, absl::Time now,
             const placement::PlacementPolicy& policy, const PassOptions& options) {
  if (options.backfill.enabled) {
    return RunBackfillPass(view, running, pending, now, policy, options);
  }
  return RunPass(view, pending, now, policy, options);
}

Plan RunPass(const CapacityView& view, absl::Span<const core::Job* const> pending, absl::Time now,
             const placement::PlacementPolicy& policy, const PassOptions& options) {
  if (options.backfill.enabled) {
    return RunBackfillPass(view, {}, pending, now, policy, options);
  }
  Plan plan;
  plan.time = now;
  // Later jobs must see what earlier starts took, so starts go into a private copy, made at the
  // first start: most passes on a busy cluster start nothing and copy nothing.
  std::optional<CapacityView> copy;
  const CapacityView* current = &view;
  int64_t free_gpus = FreeGpusOnOpenNodes(view);
  // A request above this is sent to the policy, which says infeasible.
  const int64_t total_gpus = internal::TotalGpus(view);
  // Lookups only; never iterated, so hash order cannot reach a decision.
  absl::flat_hash_map<ShapeKey, ShapeFailure> failed;
  // sched/builtin: partitions where a job could not start. Lookups only.
  absl::flat_hash_set<std::string> blocked;
  std::vector<placement::NodeUse> uses;
  limits::PassLimits limits(options.limits);
  std::string limit_detail;

  for (const core::Job* job : pending) {
    if (job->state != core::JobState::kPending) {
      continue;
    }
    const core::ResourceRequest& spec = job->resources;
    if (options.strict_order && blocked.contains(spec.partition)) {
      ++plan.stats.blocked;
      // A job already waiting with reason Priority needs no note: a long queue behind a blocked
      // job costs one comparison per job and pass, not a string.
      if (job->reason != core::JobReason::kPriority) {
        plan.pending.push_back({job->id, core::JobReason::kPriority, false,
                                "a job before it in its partition cannot start"});
      }
      continue;
    }
    // Over a QOS or association limit: waits with the limit's reason, holding back nobody.
    if (const core::JobReason limited = limits.Check(*job, &limit_detail);
        limited != core::JobReason::kNone) {
      ++plan.stats.limited;
      plan.pending.push_back({job->id, limited, false, limit_detail});
      continue;
    }
    // Under sched/builtin, a job that cannot start (for now) holds back its partition.
    auto block = [&] {
      if (options.strict_order) {
        blocked.insert(spec.partition);
      }
    };
    if (free_gpus == 0 && spec.gpus_per_node > 0 && spec.min_nodes * spec.gpus_per_node > 0 &&
        total_gpus >= int64_t{spec.min_nodes} * spec.gpus_per_node) {
      // Every GPU is taken: the common case of a long queue on a full cluster. Such jobs are not
      // looked at (no note: they keep their reason, a new job shows "None" as in Slurm), so a
      // pass over a full cluster costs O(pending) comparisons and nothing more.
      ++plan.stats.not_reached;
      block();
      continue;
    }
    ++plan.stats.considered;
    const bool keyed = options.skip_identical && HasShape(spec);
    if (keyed) {
      auto it = failed.find(KeyOf(spec));
      if (it != failed.end()) {
        ++plan.stats.skipped_identical;
        plan.pending.push_back({job->id, it->second.reason, it->second.infeasible,
                                it->second.infeasible ? it->second.detail : std::string()});
        if (it->second.infeasible) {
          ++plan.stats.infeasible;
        } else {
          block();
        }
        continue;
      }
    }
    const int64_t asked = internal::AskedGpus(spec);
    if (spec.required_nodes.empty() && asked > free_gpus && asked <= total_gpus) {
      block();
      ++plan.stats.skipped_capacity;
      plan.pending.push_back(
          {job->id, core::JobReason::kResources, false, "more GPUs than are free in the cluster"});
      if (keyed) {
        failed.emplace(KeyOf(spec), ShapeFailure{core::JobReason::kResources, false, ""});
      }
      continue;
    }
    if (options.max_policy_calls > 0 && plan.stats.policy_calls >= options.max_policy_calls) {
      ++plan.stats.beyond_depth;
      plan.pending.push_back(
          {job->id, core::JobReason::kPriority, false, "not reached in this pass (depth cap)"});
      continue;
    }

    const PlacementRequest request(spec, job->eligible_time);
    ++plan.stats.policy_calls;
    PlacementResult result = policy.Place(*current, request, now);
    if (!result.placed()) {
      const bool infeasible = result.outcome == placement::Outcome::kInfeasible;
      const core::JobReason reason =
          infeasible ? core::JobReason::kBadConstraints : ToJobReason(result.reason);
      if (infeasible) {
        ++plan.stats.infeasible;
      } else {
        block();
      }
      if (keyed) {
        failed.emplace(KeyOf(spec), ShapeFailure{reason, infeasible, result.detail});
      }
      plan.pending.push_back({job->id, reason, infeasible, std::move(result.detail)});
      continue;
    }

    PlannedStart start;
    start.job = job->id;
    start.exclusive = spec.exclusive;
    if (options.compute_min_units && result.nodes.size() > 1) {
      start.min_units_possible = MinUnitsPossible(*current, request, now);
    } else if (options.compute_min_units) {
      start.min_units_possible = 1;
    }
    uses.clear();
    for (const placement::NodeAssignment& a : result.nodes) {
      start.nodes.push_back({a.node, a.gpus, spec.cpus_per_node, spec.mem_per_node_mib, {}});
      uses.push_back({a.node, a.gpus, spec.cpus_per_node, spec.mem_per_node_mib});
    }
    // The policy chose from this very view, so this cannot fail; if a policy bug made it fail,
    // the job stays pending with the message rather than double-booking GPUs.
    if (!copy.has_value()) {
      copy.emplace(view);
      current = &*copy;
    }
    const absl::Status applied = copy->ApplyJob(uses, spec.exclusive, /*start=*/true);
    if (!applied.ok()) {
      block();
      plan.pending.push_back(
          {job->id, core::JobReason::kResources, false,
           absl::StrCat("internal: placement over capacity: ", applied.message())});
      continue;
    }
    for (const placement::NodeUse& u : uses) {
      free_gpus -= u.gpus;
    }
    limits.Take(*job, start.nodes);
    start.explanation = std::move(result.explanation);
    plan.starts.push_back(std::move(start));
    ++plan.stats.placed;
  }
  return plan;
}

}  // namespace canopy::plan
