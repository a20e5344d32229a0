// The trace-replay loop (simulator.h): the event loop, the simulated cluster around the real
// lifecycle, and what the metrics learn from the jobs' records as they change.
#include "scheduler/sim/simulator.h"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "scheduler/lifecycle/job_lifecycle.h"
#include "scheduler/sim/event_queue.h"
#include "scheduler/state/cluster_state.h"

namespace canopy::sim {
namespace {

using core::Job;
using core::JobId;
using core::JobState;

// What the simulator remembers about a job, to turn record changes into metrics.
struct SimJob {
  int32_t trace_index = -1;
  JobState state = JobState::kPending;
  uint32_t run_id = 0;       // the last run seen launched
  uint32_t run_started = 0;  // the last run seen RUNNING
  int32_t restart_count = 0;
  int64_t gpus = 0;      // held by the current run
  bool holding = false;  // the current run holds its nodes
  double stretch = 1.0;  // of the current run's placement
  absl::Time first_start = absl::InfinitePast();
  bool unschedulable = false;  // given up on: never runnable on this cluster
  bool finished = false;
};

// A shared_ptr that does not own: the caller of RunSimulation keeps the object alive.
template <typename T>
std::shared_ptr<const T> Borrow(const T& object) {
  return std::shared_ptr<const T>(std::shared_ptr<const T>(), &object);
}

int64_t TotalGpus(const config::ClusterConfig& config) {
  int64_t total = 0;
  for (const config::NodeConfig& n : config.nodes) {
    for (const config::GpuConfig& g : n.gpus) {
      total += g.count;
    }
  }
  return total;
}

class Simulation {
 public:
  Simulation(const config::ClusterConfig& config, const topology::Topology& topology,
             absl::Span<const TraceJob> trace, const SimOptions& options)
      : config_(config),
        topology_(topology),
        trace_(trace),
        options_(options),
        comm_(topology, options.comm),
        failures_(options.failures),
        clock_(absl::UnixEpoch()),
        metrics_(TotalGpus(config), absl::UnixEpoch()),
        agents_(events_, topology.node_count(), options.agents),
        nodes_(config, absl::UnixEpoch()),
        jobs_(trace.size() + 1) {
    operator_.authenticated = true;
    operator_.is_operator = true;
    operator_.user_name = "canopy-sim";
    // The partition trace jobs go to (the default one, as the lifecycle picks it): a trace
    // job's limit is capped at its MaxTime, and one without a limit gets that MaxTime (not the
    // partition's DefaultTime: a trace's run times are what the jobs really needed).
    if (!config.partitions.empty()) {
      max_time_ = config.partitions.front().max_time;
    }
    for (const config::PartitionConfig& p : config.partitions) {
      if (p.is_default) {
        max_time_ = p.max_time;
        break;
      }
    }
  }

  absl::Status Init(const std::string& policy) {
    lifecycle::LifecycleOptions options;
    options.placement_policy = PolicyRegistryName(policy);
    options.queue_sort = options_.queue_sort;
    options.pass = options_.pass;
    options.pass.compute_min_units = true;
    absl::StatusOr<std::unique_ptr<lifecycle::JobLifecycle>> lc =
        lifecycle::JobLifecycle::Create(Borrow(config_), Borrow(topology_), clock_, options);
    if (!lc.ok()) {
      return lc.status();
    }
    lifecycle_ = *std::move(lc);
    policy_name_ = options.placement_policy;
    // The config's accounts (canopy-sim --accounts puts the file's there) seed the tree, as a
    // fresh canopyd's store would be.
    lifecycle::Effects effects;
    return lifecycle_->RestoreAccounting({}, effects);
  }

  absl::StatusOr<SimResult> Run() {
    RegisterAllNodes();
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
    const absl::Time end = options_.until == absl::InfiniteDuration()
                               ? absl::InfiniteFuture()
                               : absl::UnixEpoch() + options_.until;
    while (!events_.empty() && remaining_ > 0 && events_.top().time <= end) {
      const absl::Time t = events_.top().time;
      clock_.AdvanceTo(t);
      while (!events_.empty() && events_.top().time == t) {
        Event e = events_.Pop();
        if (++event_count_ % SimOptions::kProgressEvents == 0) {
          ReportProgress();
        }
        if (absl::Status s = Handle(e); !s.ok()) {
          return s;
        }
      }
      if (lifecycle_->NextDeadline() <= t) {
        lifecycle::Effects effects;
        lifecycle_->Tick(effects);
        Process(effects);
      }
      if (schedule_ && lifecycle_->pending_count() > 0) {
        schedule_ = false;
        ++passes_;
        lifecycle::Effects effects;
        lifecycle_->Schedule(effects);
        Process(effects);
      }
      ArmTick();
    }
    if (end != absl::InfiniteFuture()) {
      CutOff(end);
    }
    ReportProgress();
    ReportShares();
    SimResult result;
    result.metrics = metrics_.Finish(policy_name_, passes_, event_count_);
    result.series = metrics_.series();
    return result;
  }

 private:
  void ReportProgress() const {
    if (options_.progress) {
      const int64_t total = static_cast<int64_t>(trace_.size());
      options_.progress(SimProgress{.simulated = clock_.Now() - absl::UnixEpoch(),
                                    .jobs_total = total,
                                    .jobs_done = total - remaining_,
                                    .pending = static_cast<int64_t>(lifecycle_->pending_count()),
                                    .events = event_count_});
    }
  }

  // --until: runs still going at `end` delivered their GPU time up to it.
  void CutOff(absl::Time end) {
    clock_.AdvanceTo(std::max(clock_.Now(), end));
    for (size_t id = 0; id < jobs_.size(); ++id) {
      const SimJob& sj = jobs_[id];
      const Job* job =
          sj.trace_index >= 0 ? lifecycle_->Find(JobId(static_cast<uint32_t>(id))) : nullptr;
      if (job == nullptr || !sj.holding || sj.run_started != sj.run_id || job->start_time >= end) {
        continue;
      }
      metrics_.Delivered(job->spec->account, static_cast<double>(sj.gpus) *
                                                 absl::ToDoubleSeconds(end - job->start_time));
    }
    metrics_.CutOff(end);
  }

  // Each account's normalised shares and, at the end, its fair share (sshare's numbers).
  void ReportShares() {
    const lifecycle::Accounting& a = lifecycle_->accounting();
    const fairshare::AssociationTree& tree = a.tree();
    const std::vector<fairshare::ShareRow>& rows = a.shares();
    for (size_t i = 1; i < tree.size() && i < rows.size(); ++i) {
      const fairshare::AssociationTree::Node& node = tree.node(static_cast<int32_t>(i));
      if (node.is_user()) {
        continue;
      }
      double fairshare = rows[i].fairshare;
      if (a.fair_tree()) {
        double sum = 0;
        int users = 0;
        for (int32_t c : node.children) {
          if (tree.node(c).is_user()) {
            sum += rows[c].fairshare;
            ++users;
          }
        }
        fairshare = users > 0 ? sum / users : 0;
      }
      metrics_.AccountShare(node.spec.account, rows[i].norm_shares, fairshare);
    }
  }

  // Every node's agent registers at the start, reporting what the configuration promises.
  void RegisterAllNodes() {
    lifecycle::Effects effects;
    for (int n = 0; n < topology_.node_count(); ++n) {
      const config::NodeConfig& c = config_.nodes[n];
      state::NodeRegistration reg;
      reg.hostname = "canopy-sim";
      reg.agent_version = "sim";
      reg.cpus = c.cpus;
      reg.real_memory_mib = c.real_memory_mib;
      int index = 0;
      for (const config::GpuConfig& g : c.gpus) {
        for (int i = 0; i < g.count; ++i) {
          state::GpuStatus gpu;
          gpu.index = index++;
          gpu.model = g.type;
          reg.gpus.push_back(std::move(gpu));
        }
      }
      absl::StatusOr<core::NodeId> id = nodes_.RegisterNode(c.name, std::move(reg), clock_.Now());
      if (id.ok()) {
        lifecycle_->NodeChanged(nodes_.node(*id), effects);
      }
    }
    Process(effects);
  }

  absl::Status Handle(const Event& e) {
    switch (e.kind) {
      case EventKind::kSubmit:
        Submit(static_cast<int32_t>(e.index));
        return absl::OkStatus();
      case EventKind::kAgentReport:
        if (auto report = agents_.Take(e.index); report.has_value()) {
          lifecycle::Effects effects;
          lifecycle_->JobReported(report->first, report->second, effects);
          Process(effects);
        }
        return absl::OkStatus();
      case EventKind::kTick:
        return absl::OkStatus();  // the loop ticks the lifecycle after the time's events
      case EventKind::kNodeFail:
        return NodeFail(core::NodeId(static_cast<int32_t>(e.index)));
      case EventKind::kNodeRepair:
        return NodeRepair(core::NodeId(static_cast<int32_t>(e.index)));
    }
    return absl::OkStatus();
  }

  void Submit(int32_t index) {
    const TraceJob& tj = trace_[index];
    lifecycle::SubmitRequest request;
    core::JobSpec& spec = request.spec.Mutable();
    spec.name = absl::StrCat("trace-", tj.id);
    spec.script = "#!/bin/sh\n";  // what runs does not matter: the agents know its run time
    spec.min_nodes = tj.nodes;
    spec.gpus_per_node = tj.gpus_per_node;
    spec.cpus_per_task = std::max(1, tj.gpus_per_node * options_.cpus_per_gpu);
    spec.account = tj.account;
    spec.time_limit = std::min(tj.time_limit, max_time_);  // infinite = UNLIMITED
    lifecycle::Caller user;
    user.authenticated = true;
    user.uid = 1000;
    user.user_name = tj.user;
    metrics_.JobSubmitted(clock_.Now());
    lifecycle::Effects effects;
    absl::StatusOr<lifecycle::SubmitAnswer> answer =
        lifecycle_->Submit(std::move(request), user, effects);
    if (!answer.ok()) {
      // Refused at submission (more GPUs per node than any node has): never runnable.
      metrics_.Unschedulable();
      --remaining_;
      return;
    }
    jobs_[answer->job_id.value()].trace_index = index;
    Process(effects);
    const Job& job = *lifecycle_->Find(answer->job_id);
    if (job.state == JobState::kPending && lifecycle::BlocksScheduling(job.reason)) {
      GiveUp(job.id);  // a partition limit it can never meet
    }
  }

  absl::Status NodeFail(core::NodeId node) {
    metrics_.NodeFailed();
    agents_.NodeFailed(node);
    if (absl::Status s = ChangeNode(node, state::NodeAdminAction::kDown); !s.ok()) {
      return s;
    }
    events_.Push(clock_.Now() + failures_.options().repair_time, EventKind::kNodeRepair,
                 node.value());
    return absl::OkStatus();
  }

  absl::Status NodeRepair(core::NodeId node) {
    agents_.NodeRepaired(node);
    if (absl::Status s = ChangeNode(node, state::NodeAdminAction::kResume); !s.ok()) {
      return s;
    }
    events_.Push(clock_.Now() + failures_.NextFailureIn(), EventKind::kNodeFail, node.value());
    return absl::OkStatus();
  }

  // The controller learns of a failed (or repaired) node at once, as an admin's DOWN/RESUME.
  absl::Status ChangeNode(core::NodeId node, state::NodeAdminAction action) {
    absl::StatusOr<std::vector<core::NodeId>> changed = nodes_.UpdateNodes(
        {topology_.node_name(node)}, action, "simulated node failure", "canopy-sim", clock_.Now());
    if (!changed.ok()) {
      return absl::InternalError(changed.status().message());
    }
    lifecycle::Effects effects;
    lifecycle_->NodeChanged(nodes_.node(node), effects);
    Process(effects);
    return absl::OkStatus();
  }

  // A job that can never run on this cluster is cancelled and counted apart.
  void GiveUp(JobId id) {
    SimJob& sj = jobs_[id.value()];
    if (sj.unschedulable) {
      return;
    }
    sj.unschedulable = true;
    metrics_.Unschedulable();
    --remaining_;
    lifecycle::Effects effects;
    lifecycle::CancelRequest cancel;
    cancel.job_ids = {id.value()};
    (void)lifecycle_->Cancel(cancel, operator_, effects);
    Process(effects);
  }

  // Hands the lifecycle's messages to the agents and learns from the records that changed.
  void Process(lifecycle::Effects& effects) {
    schedule_ = schedule_ || effects.schedule;
    const absl::Time now = clock_.Now();
    for (const lifecycle::StartNote& note : effects.started) {
      Launched(*lifecycle_->Find(note.job), note.min_units_possible);
    }
    agents_.Deliver(effects.messages, now);
    std::vector<JobId> infeasible;
    for (JobId id : effects.dirty) {
      const Job& job = *lifecycle_->Find(id);
      Observe(job, now);
      if (job.state == JobState::kPending && job.reason == core::JobReason::kBadConstraints) {
        infeasible.push_back(id);
      }
    }
    for (JobId id : infeasible) {
      GiveUp(id);
    }
  }

  // The pass started a job: its placement's quality, and how much longer it will run for it.
  void Launched(const Job& job, int32_t min_units_possible) {
    SimJob& sj = jobs_[job.id.value()];
    sj.stretch = 1.0;
    const size_t n = job.allocation.nodes.size();
    if (n > 1) {
      std::vector<core::NodeId> nodes;
      nodes.reserve(n);
      for (const core::NodeShare& share : job.allocation.nodes) {
        nodes.push_back(share.node);
      }
      std::sort(nodes.begin(), nodes.end());
      const PlacementShape shape = comm_.Shape(nodes);
      sj.stretch = comm_.Stretch(shape, static_cast<int32_t>(n));
      metrics_.MultiNodeStart(shape.leaves, min_units_possible, sj.stretch);
    }
  }

  void Observe(const Job& job, absl::Time now) {
    SimJob& sj = jobs_[job.id.value()];
    const bool holds = lifecycle::HoldsNodes(job.state);
    if (holds && job.run_id != sj.run_id) {  // a new run took its nodes
      sj.run_id = job.run_id;
      sj.gpus = job.allocation.total_gpus();
      sj.holding = true;
      metrics_.GpusChanged(now, sj.gpus);
    }
    const bool ran = job.state == JobState::kRunning || job.state == JobState::kCompleting ||
                     (core::IsTerminal(job.state) && job.state != JobState::kCancelled);
    if (ran && job.run_id == sj.run_id && sj.run_started != sj.run_id && sj.holding) {
      sj.run_started = sj.run_id;
      if (sj.first_start == absl::InfinitePast()) {
        sj.first_start = job.start_time;
      }
      const absl::Duration run = trace_[sj.trace_index].duration * sj.stretch;
      // A run longer than the time limit is ended by the lifecycle's timer, not by the script.
      if (job.state == JobState::kRunning && run <= job.time_limit) {
        agents_.RunScript(job.id, job.allocation.nodes[0].node, job.run_id, job.start_time + run);
      }
    }
    if (sj.holding && !holds) {  // the run is over: its GPUs are free
      sj.holding = false;
      metrics_.GpusChanged(now, -sj.gpus);
      if (sj.run_started == sj.run_id) {  // a launch that never ran delivered nothing
        metrics_.Delivered(job.spec->account, static_cast<double>(sj.gpus) *
                                                  absl::ToDoubleSeconds(now - job.start_time));
      }
    }
    if (job.restart_count > sj.restart_count) {
      sj.restart_count = job.restart_count;
      metrics_.Requeued();
    }
    if (core::IsTerminal(job.state) && !sj.finished && !sj.unschedulable) {
      sj.finished = true;
      if (job.state == JobState::kTimeout) {
        metrics_.TimedOut();
      } else if (job.state == JobState::kNodeFail) {
        metrics_.NodeFailJob();
      }
      metrics_.JobFinished(job.spec->account, job.submit_time, sj.first_start, job.end_time,
                           trace_[sj.trace_index].duration);
      --remaining_;
    }
    sj.state = job.state;
  }

  // Makes sure a kTick event is queued for the lifecycle's next deadline. Ticks queued for
  // deadlines that went away since are harmless: the loop ticks only what is due.
  void ArmTick() {
    const absl::Time now = clock_.Now();
    const absl::Time next = lifecycle_->NextDeadline();
    if (next == absl::InfiniteFuture() || (armed_at_ > now && armed_at_ <= next)) {
      return;
    }
    armed_at_ = std::max(next, now);
    events_.Push(armed_at_, EventKind::kTick);
  }

  const config::ClusterConfig& config_;
  const topology::Topology& topology_;
  absl::Span<const TraceJob> trace_;
  const SimOptions options_;
  CommCostModel comm_;
  FailureInjector failures_;
  SimClock clock_;
  MetricsCollector metrics_;
  EventQueue events_;
  SimulatedAgents agents_;
  state::ClusterState nodes_;
  std::unique_ptr<lifecycle::JobLifecycle> lifecycle_;
  std::string policy_name_;
  lifecycle::Caller operator_;
  std::vector<SimJob> jobs_;  // by lifecycle job id (assigned 1, 2, ... in submit order)
  absl::Duration max_time_ = absl::InfiniteDuration();
  bool schedule_ = false;
  absl::Time armed_at_ = absl::InfinitePast();  // the earliest kTick queued
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
  Simulation sim(config, topology, trace, options);
  if (absl::Status s = sim.Init(options.policy); !s.ok()) {
    return s;
  }
  return sim.Run();
}

}  // namespace canopy::sim
