// The trace-replay loop (simulator.h).
#include "scheduler/sim/simulator.h"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "scheduler/core/job_table.h"
#include "scheduler/placement/registry.h"
#include "scheduler/plan/applier.h"
#include "scheduler/queue/queue_sort.h"
#include "scheduler/sim/event_queue.h"
#include "scheduler/state/capacity_builder.h"

namespace canopy::sim {
namespace {

using core::Job;
using core::JobId;
using core::JobState;

// Per-job facts only the simulator knows.
struct SimJob {
  int32_t trace_index = 0;
  absl::Time first_start = absl::InfinitePast();
  bool will_time_out = false;  // this run ends at the time limit
};

class Simulation {
 public:
  Simulation(const config::ClusterConfig& config, const topology::Topology& topology,
             absl::Span<const TraceJob> trace, const SimOptions& options,
             placement::CapacityView view, std::unique_ptr<placement::PlacementPolicy> policy,
             std::unique_ptr<queue::QueueSort> sort)
      : config_(config),
        topology_(topology),
        trace_(trace),
        options_(options),
        view_(std::move(view)),
        policy_(std::move(policy)),
        sort_(std::move(sort)),
        comm_(topology, options.comm),
        failures_(options.failures),
        clock_(absl::UnixEpoch()),
        metrics_(TotalGpus(view_), absl::UnixEpoch()),
        node_jobs_(topology.node_count()) {
    pass_options_ = options.pass;
    pass_options_.compute_min_units = true;
    max_time_ = absl::InfiniteDuration();
    for (const config::PartitionConfig& p : config.partitions) {
      if (p.is_default) {
        max_time_ = p.max_time;
      }
    }
  }

  absl::StatusOr<SimResult> Run() {
    for (size_t i = 0; i < trace_.size(); ++i) {
      events_.Push(absl::UnixEpoch() + trace_[i].submit, EventKind::kSubmit,
                   static_cast<int64_t>(i));
    }
    remaining_ = static_cast<int64_t>(trace_.size());
    if (failures_.options().enabled()) {
      for (int n = 0; n < topology_.node_count(); ++n) {
        events_.Push(absl::UnixEpoch() + failures_.NextFailureIn(), EventKind::kNodeFail, n);
      }
    }
    while (!events_.empty() && remaining_ > 0) {
      const absl::Time t = events_.top().time;
      clock_.AdvanceTo(t);
      bool changed = false;
      while (!events_.empty() && events_.top().time == t) {
        Event e = events_.Pop();
        ++event_count_;
        absl::StatusOr<bool> c = Handle(e);
        if (!c.ok()) {
          return c.status();
        }
        changed |= *c;
      }
      if (changed && !pending_.empty()) {
        if (absl::Status s = Schedule(t); !s.ok()) {
          return s;
        }
      }
    }
    SimResult result;
    result.metrics =
        metrics_.Finish(policy_->name().empty() ? options_.policy : std::string(policy_->name()),
                        passes_, event_count_);
    result.series = metrics_.series();
    return result;
  }

 private:
  static int64_t TotalGpus(const placement::CapacityView& view) {
    int64_t total = 0;
    for (const placement::NodeCapacity& n : view.nodes()) {
      total += n.total_gpus;
    }
    return total;
  }

  absl::StatusOr<bool> Handle(const Event& e) {
    switch (e.kind) {
      case EventKind::kSubmit:
        return Submit(static_cast<int32_t>(e.index), e.time);
      case EventKind::kJobEnd:
        return End(JobId(static_cast<uint32_t>(e.index)), e.generation, e.time);
      case EventKind::kNodeFail:
        return NodeFail(core::NodeId(static_cast<int32_t>(e.index)), e.time);
      case EventKind::kNodeRepair:
        return NodeRepair(core::NodeId(static_cast<int32_t>(e.index)), e.time);
    }
    return false;
  }

  absl::StatusOr<bool> Submit(int32_t index, absl::Time t) {
    const TraceJob& tj = trace_[index];
    Job job;
    job.id = JobId(tj.id);
    job.submit_time = job.eligible_time = t;
    job.spec.min_nodes = tj.nodes;
    job.spec.gpus_per_node = tj.gpus_per_node;
    job.spec.cpus_per_node = std::max(1, tj.gpus_per_node * options_.cpus_per_gpu);
    job.spec.account = tj.account;
    job.spec.user = tj.user;
    job.spec.time_limit = std::min(tj.time_limit, max_time_);
    metrics_.JobSubmitted(t);
    if (absl::Status s = jobs_.Add(std::move(job)); !s.ok()) {
      return s;
    }
    index_of_[tj.id] = SimJob{index};
    pending_.insert(JobId(tj.id));
    return true;
  }

  void Finished(const Job& job, absl::Time t) {
    const SimJob& sj = index_of_[job.id.value()];
    metrics_.JobFinished(job.spec.account, job.submit_time, sj.first_start, t,
                         trace_[sj.trace_index].duration);
    --remaining_;
  }

  // Frees the bookkeeping of a running job's nodes and charges its GPU time.
  void StopRun(const Job& job, absl::Time t) {
    const double gpus = static_cast<double>(job.allocation.total_gpus());
    metrics_.Delivered(job.spec.account, gpus * absl::ToDoubleSeconds(t - job.start_time));
    metrics_.GpusChanged(t, -job.allocation.total_gpus());
    for (const core::NodeShare& s : job.allocation.nodes) {
      std::vector<JobId>& on = node_jobs_[s.node.value()];
      on.erase(std::remove(on.begin(), on.end(), job.id), on.end());
    }
  }

  absl::StatusOr<bool> End(JobId id, int32_t generation, absl::Time t) {
    Job* job = jobs_.Find(id);
    if (job == nullptr || job->state != JobState::kRunning || job->restart_count != generation) {
      return false;  // a run that a node failure already ended
    }
    const bool timeout = index_of_[id.value()].will_time_out;
    StopRun(*job, t);
    if (absl::Status s =
            plan::EndJob(view_, *job, timeout ? JobState::kTimeout : JobState::kCompleted, t);
        !s.ok()) {
      return s;
    }
    if (timeout) {
      metrics_.TimedOut();
    }
    Finished(*job, t);
    return true;
  }

  absl::StatusOr<bool> NodeFail(core::NodeId node, absl::Time t) {
    metrics_.NodeFailed();
    const std::vector<JobId> victims = node_jobs_[node.value()];  // copy: StopRun edits it
    for (JobId id : victims) {
      Job* job = jobs_.Find(id);
      StopRun(*job, t);
      if (absl::Status s = plan::FailJobOnNodeLoss(view_, *job, t); !s.ok()) {
        return s;
      }
      if (job->state == JobState::kPending) {
        metrics_.Requeued();
        pending_.insert(id);
      } else {
        metrics_.NodeFailJob();
        Finished(*job, t);
      }
    }
    placement::NodeCapacity cap = view_.node(node);
    cap.up = false;
    if (absl::Status s = view_.UpdateNode(node, cap); !s.ok()) {
      return absl::InternalError(s.message());
    }
    events_.Push(t + failures_.options().repair_time, EventKind::kNodeRepair, node.value());
    return true;
  }

  absl::StatusOr<bool> NodeRepair(core::NodeId node, absl::Time t) {
    placement::NodeCapacity cap = view_.node(node);
    cap.up = true;
    if (absl::Status s = view_.UpdateNode(node, cap); !s.ok()) {
      return absl::InternalError(s.message());
    }
    events_.Push(t + failures_.NextFailureIn(), EventKind::kNodeFail, node.value());
    return true;
  }

  absl::Status Schedule(absl::Time t) {
    ++passes_;
    std::vector<const Job*> pending;
    pending.reserve(pending_.size());
    for (JobId id : pending_) {
      pending.push_back(jobs_.Find(id));
    }
    sort_->Sort(pending, t);
    plan::Plan plan = plan::RunPass(view_, pending, t, *policy_, pass_options_);
    absl::StatusOr<plan::ApplyReport> report = applier_.Apply(plan, view_, jobs_, t);
    if (!report.ok()) {
      return report.status();
    }
    size_t next = 0;  // report->started is a subsequence of plan.starts
    for (const plan::PlannedStart& start : plan.starts) {
      if (next >= report->started.size() || report->started[next] != start.job) {
        continue;
      }
      ++next;
      Started(*jobs_.Find(start.job), start, t);
    }
    for (const plan::PendingNote& note : plan.pending) {
      if (!note.infeasible) {
        continue;
      }
      Job* job = jobs_.Find(note.job);
      pending_.erase(note.job);
      if (absl::Status s = core::TransitionTo(*job, JobState::kFailed, t); !s.ok()) {
        return s;
      }
      job->reason = core::JobReason::kBadConstraints;
      metrics_.Unschedulable();
      --remaining_;
    }
    return absl::OkStatus();
  }

  void Started(const Job& job, const plan::PlannedStart& start, absl::Time t) {
    pending_.erase(job.id);
    SimJob& sj = index_of_[job.id.value()];
    if (sj.first_start == absl::InfinitePast()) {
      sj.first_start = t;
    }
    std::vector<core::NodeId> nodes;
    nodes.reserve(job.allocation.nodes.size());
    for (const core::NodeShare& s : job.allocation.nodes) {
      nodes.push_back(s.node);
      node_jobs_[s.node.value()].push_back(job.id);
    }
    metrics_.GpusChanged(t, job.allocation.total_gpus());
    double stretch = 1.0;
    if (nodes.size() > 1) {
      const PlacementShape shape = comm_.Shape(nodes);
      stretch = comm_.Stretch(shape, static_cast<int32_t>(nodes.size()));
      metrics_.MultiNodeStart(shape.leaves, start.min_units_possible, stretch);
    }
    const absl::Duration run = trace_[sj.trace_index].duration * stretch;
    sj.will_time_out = run > job.spec.time_limit;
    const absl::Time end = t + (sj.will_time_out ? job.spec.time_limit : run);
    events_.Push(end, EventKind::kJobEnd, job.id.value(), job.restart_count);
  }

  const config::ClusterConfig& config_;
  const topology::Topology& topology_;
  absl::Span<const TraceJob> trace_;
  SimOptions options_;
  plan::PassOptions pass_options_;
  placement::CapacityView view_;
  std::unique_ptr<placement::PlacementPolicy> policy_;
  std::unique_ptr<queue::QueueSort> sort_;
  plan::PlanApplier applier_;
  CommCostModel comm_;
  FailureInjector failures_;
  SimClock clock_;
  MetricsCollector metrics_;
  EventQueue events_;
  core::JobTable jobs_;
  absl::btree_set<JobId> pending_;  // ordered: the pass input never depends on hash order
  absl::flat_hash_map<uint32_t, SimJob> index_of_;  // lookups only
  std::vector<std::vector<JobId>> node_jobs_;       // per node, in start order
  absl::Duration max_time_;
  int64_t remaining_ = 0;
  int64_t passes_ = 0;
  int64_t event_count_ = 0;
};

}  // namespace

std::string PolicyRegistryName(absl::string_view name) {
  if (absl::StartsWith(name, "placement/")) {
    return std::string(name);
  }
  std::string out = absl::StrCat("placement/", name);
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

absl::StatusOr<SimResult> RunSimulation(const config::ClusterConfig& config,
                                        const topology::Topology& topology,
                                        absl::Span<const TraceJob> trace,
                                        const SimOptions& options) {
  absl::StatusOr<std::unique_ptr<placement::PlacementPolicy>> policy =
      placement::MakePlacementPolicy(PolicyRegistryName(options.policy));
  if (!policy.ok()) {
    return policy.status();
  }
  absl::StatusOr<std::unique_ptr<queue::QueueSort>> sort = queue::MakeQueueSort(options.queue_sort);
  if (!sort.ok()) {
    return sort.status();
  }
  absl::StatusOr<placement::CapacityView> view = state::BuildIdleCapacity(config, topology);
  if (!view.ok()) {
    return view.status();
  }
  Simulation sim(config, topology, trace, options, *std::move(view), *std::move(policy),
                 *std::move(sort));
  return sim.Run();
}

}  // namespace canopy::sim
