#include "scheduler/lifecycle/job_lifecycle.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/rpc/status_convert.h"
#include "common/slurm/hostlist.h"
#include "scheduler/lifecycle/array_spec.h"
#include "scheduler/lifecycle/job_records.h"
#include "scheduler/lifecycle/step_layout.h"
#include "scheduler/placement/registry.h"
#include "scheduler/plan/pass.h"
#include "scheduler/state/capacity_builder.h"

namespace canopy::lifecycle {
namespace {

using core::Job;
using core::JobState;

// How long a COMPLETING job waits for its nodes to confirm cleanup beyond KillWait before it is
// ended anyway (its nodes are then the admin's problem, as Slurm's "Kill task failed").
constexpr absl::Duration kCleanupGrace = absl::Seconds(60);
// How long a RUNNING job's batch host may re-register without the job before the job counts as
// lost: long enough for the agent to re-send an exit it saw while the controller was away.
constexpr absl::Duration kLostBatchGrace = absl::Seconds(30);

// Reasons that keep a pending job out of the pass until something other than capacity changes.
bool Blocked(core::JobReason r) {
  using R = core::JobReason;
  return r == R::kJobHeldUser || r == R::kJobHeldAdmin || r == R::kPartitionNodeLimit ||
         r == R::kPartitionTimeLimit || r == R::kPartitionDown;
}

bool HoldsNodes(JobState s) {
  return s == JobState::kConfiguring || s == JobState::kRunning || s == JobState::kCompleting;
}

std::string ExitString(const Job& job) { return absl::StrCat(job.exit_code, ":", job.exit_signal); }

}  // namespace

absl::StatusOr<std::unique_ptr<JobLifecycle>> JobLifecycle::Create(
    std::shared_ptr<const config::ClusterConfig> config,
    std::shared_ptr<const topology::Topology> topology, const std::string& policy) {
  absl::StatusOr<placement::CapacityView> view = state::BuildIdleCapacity(*config, *topology);
  if (!view.ok()) {
    return view.status();
  }
  absl::StatusOr<std::unique_ptr<placement::PlacementPolicy>> placement =
      placement::MakePlacementPolicy(policy);
  if (!placement.ok()) {
    return placement.status();
  }
  absl::StatusOr<std::unique_ptr<queue::QueueSort>> sort = queue::MakeQueueSort("queue/age");
  if (!sort.ok()) {
    return sort.status();
  }
  return std::unique_ptr<JobLifecycle>(new JobLifecycle(std::move(config), std::move(topology),
                                                        *std::move(view), *std::move(placement),
                                                        *std::move(sort)));
}

JobLifecycle::JobLifecycle(std::shared_ptr<const config::ClusterConfig> config,
                           std::shared_ptr<const topology::Topology> topology,
                           placement::CapacityView view,
                           std::unique_ptr<placement::PlacementPolicy> policy,
                           std::unique_ptr<queue::QueueSort> sort)
    : config_(std::move(config)),
      topology_(std::move(topology)),
      view_(std::move(view)),
      policy_(std::move(policy)),
      sort_(std::move(sort)),
      node_jobs_(view_.node_count()),
      gpus_in_use_(view_.node_count(), 0),
      gpu_indexes_(view_.node_count()),
      node_usable_(view_.node_count(), false) {
  // No node may take work before its agent registers.
  for (int i = 0; i < view_.node_count(); ++i) {
    const core::NodeId id(i);
    placement::NodeCapacity c = view_.node(id);
    c.up = false;
    (void)view_.UpdateNode(id, c);
    for (int g = 0; g < c.total_gpus; ++g) {
      gpu_indexes_[i].push_back(g);
    }
  }
}

JobLifecycle::Entry* JobLifecycle::FindEntry(core::JobId id) {
  auto it = entries_.find(id);
  return it == entries_.end() ? nullptr : &it->second;
}

const canopy::v1::Job* JobLifecycle::Find(core::JobId id) const {
  auto it = entries_.find(id);
  return it == entries_.end() ? nullptr : &it->second.record;
}

absl::StatusOr<std::pair<Job*, JobLifecycle::Entry*>> JobLifecycle::FindControlled(
    core::JobId id, const Caller& caller) {
  Job* job = jobs_.Find(id);
  Entry* entry = FindEntry(id);
  if (job == nullptr || entry == nullptr) {
    return absl::NotFoundError(absl::StrCat("Invalid job id specified: ", id.value()));
  }
  if (!caller.MayControl(entry->record.user_id())) {
    return absl::PermissionDeniedError(absl::StrCat("Access/permission denied: job ", id.value(),
                                                    " belongs to ", entry->record.user_name()));
  }
  return std::make_pair(job, entry);
}

int JobLifecycle::NodeIndexIn(const Job& job, core::NodeId node) const {
  for (size_t i = 0; i < job.allocation.nodes.size(); ++i) {
    if (job.allocation.nodes[i].node == node) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

// ------------------------------------------------------------------ restore

absl::Status JobLifecycle::Restore(const persistence::JobState& state, absl::Time now,
                                   Effects& effects) {
  uint32_t max_id = 0;
  for (const persistence::JobRow& row : state.jobs) {
    max_id = std::max(max_id, row.id);
    Entry entry;
    if (!entry.record.ParseFromString(row.record)) {
      return absl::DataLossError(absl::StrCat("job ", row.id, ": stored record is corrupt"));
    }
    const canopy::v1::Job& r = entry.record;
    Job job;
    job.id = core::JobId(r.job_id());
    job.state = FromProtoState(r.state());
    job.reason = ReasonFromName(r.reason());
    job.submit_time = rpc::FromProtoTime(r.submit_time());
    job.eligible_time = job.submit_time;
    job.start_time = rpc::FromProtoTime(r.start_time());
    job.end_time = rpc::FromProtoTime(r.end_time());
    job.exit_code = r.exit_code();
    job.exit_signal = r.exit_signal();
    job.restart_count = r.restart_count();
    absl::StatusOr<ResolvedSpec> spec = ResolveSpec(r.spec(), *config_, *topology_);
    absl::Status problem = spec.status();
    if (spec.ok()) {
      job.spec = spec->core;
      job.spec.user = r.user_name();
    }
    if (problem.ok() && HoldsNodes(job.state)) {
      absl::StatusOr<core::Allocation> alloc = AllocationFromRecord(r, *topology_);
      problem = alloc.status();
      if (alloc.ok()) {
        job.allocation = *std::move(alloc);
        problem = plan::RestoreAllocation(view_, job);
        if (!problem.ok()) {
          job.allocation = {};
        }
      }
    }
    if (!problem.ok() && !core::IsTerminal(job.state)) {
      effects.warnings.push_back(absl::StrCat("job ", row.id,
                                              " no longer fits the configuration and is "
                                              "cancelled: ",
                                              problem.message()));
      job.allocation = {};
      job.state = JobState::kCancelled;
      job.end_time = now;
      entry.record.set_state_message(absl::StrCat("cancelled at restart: ", problem.message()));
      Touch(job.id, effects);
    }
    if (!job.allocation.empty()) {
      entry.gpu_indexes = GpuIndexesFromRecord(r);
      entry.gpu_indexes.resize(job.allocation.nodes.size());
      for (size_t i = 0; i < job.allocation.nodes.size(); ++i) {
        const core::NodeId node = job.allocation.nodes[i].node;
        node_jobs_[node.value()].insert(job.id);
        for (int g : entry.gpu_indexes[i]) {
          if (g >= 0 && g < 64) {
            gpus_in_use_[node.value()] |= uint64_t{1} << g;
          }
        }
      }
      const size_t n = job.allocation.nodes.size();
      // Agents reconnect after a controller restart: give them time before judging.
      const absl::Duration reconnect = config_->heartbeat_interval * 3;
      if (job.state == JobState::kConfiguring) {
        entry.confirmed.assign(n, false);
        entry.launch_deadline = now + reconnect + config_->launch_timeout;
      }
      if (job.state == JobState::kCompleting) {
        entry.cleaned.assign(n, false);
        entry.cleanup_deadline = now + reconnect + config_->kill_wait + kCleanupGrace;
      }
    }
    if (!r.idempotency_key().empty()) {
      idempotency_[r.idempotency_key()] = job.id;
    }
    if (r.spec().array_spec().find('%') != std::string::npos) {
      has_throttled_arrays_ = true;
    }
    if (absl::Status s = jobs_.Add(std::move(job)); !s.ok()) {
      return s;
    }
    const core::JobId id(r.job_id());
    auto [it, inserted] = entries_.emplace(id, std::move(entry));
    published_[id.value()] = std::make_shared<const canopy::v1::Job>(it->second.record);
  }
  next_job_id_ = std::max({next_job_id_, state.next_job_id, max_id + 1});
  ++capacity_version_;
  return absl::OkStatus();
}

// ------------------------------------------------------------------ nodes

void JobLifecycle::NodeChanged(const state::NodeRecord& node, absl::Time now, Effects& effects) {
  const int i = node.id.value();
  placement::NodeCapacity c = view_.node(node.id);
  state::ApplyAvailability(node, c);
  if (!node.registration.gpus.empty()) {
    std::vector<int> indexes;
    for (const state::GpuStatus& g : node.registration.gpus) {
      indexes.push_back(g.index);
    }
    std::sort(indexes.begin(), indexes.end());
    gpu_indexes_[i] = std::move(indexes);
  }
  (void)view_.UpdateNode(node.id, c);
  ++capacity_version_;
  const bool usable = c.usable();
  if (usable && !node_usable_[i]) {
    effects.schedule = true;
  }
  node_usable_[i] = usable;

  // Which GPU indexes of this node are broken now.
  uint64_t broken = 0;
  for (const state::GpuStatus& g : node.registration.gpus) {
    if (!g.healthy && g.index >= 0 && g.index < 64) {
      broken |= uint64_t{1} << g.index;
    }
  }
  const bool down = !c.up;
  if (down && !holds_.empty()) {
    ReleaseHolds(core::JobId(), node.id, 0, effects);
  }
  if (!down && broken == 0) {
    return;
  }
  // Copy: losing a job edits node_jobs_.
  const std::vector<core::JobId> held(node_jobs_[i].begin(), node_jobs_[i].end());
  for (core::JobId id : held) {
    Job* job = jobs_.Find(id);
    Entry* entry = FindEntry(id);
    if (job == nullptr || entry == nullptr) {
      continue;
    }
    const int idx = NodeIndexIn(*job, node.id);
    if (idx < 0) {
      continue;
    }
    if (job->state == JobState::kCompleting) {
      if (down) {
        entry->cleaned[idx] = true;  // a down node's processes count as gone
        FinishIfClean(*job, *entry, now, effects);
      }
      continue;
    }
    uint64_t mine = 0;
    for (int g : entry->gpu_indexes[idx]) {
      if (g >= 0 && g < 64) {
        mine |= uint64_t{1} << g;
      }
    }
    if (down) {
      LoseJob(*job, *entry,
              absl::StrCat("node ", node.name, " is down",
                           node.reason.empty() ? "" : absl::StrCat(": ", node.reason)),
              now, effects);
    } else if ((mine & broken) != 0) {
      LoseJob(*job, *entry, absl::StrCat("a GPU of node ", node.name, " used by the job failed"),
              now, effects);
    }
  }
}

std::vector<uint32_t> JobLifecycle::NodeRegistered(const state::NodeRecord& node,
                                                   const std::vector<uint32_t>& running_job_ids,
                                                   absl::Time now, Effects& effects) {
  std::vector<uint32_t> kill;
  const absl::btree_set<core::JobId>& held = node_jobs_[node.id.value()];
  absl::btree_set<core::JobId> running;
  for (uint32_t raw : running_job_ids) {
    const core::JobId id(raw);
    running.insert(id);
    if (!held.contains(id)) {
      kill.push_back(raw);
      effects.warnings.push_back(absl::StrCat("node ", node.name, " still runs job ", raw,
                                              ", which does not hold it: killing it"));
    }
  }
  const std::vector<core::JobId> jobs(held.begin(), held.end());
  for (core::JobId id : jobs) {
    Job* job = jobs_.Find(id);
    Entry* entry = FindEntry(id);
    if (job == nullptr || entry == nullptr) {
      continue;
    }
    const int idx = NodeIndexIn(*job, node.id);
    if (idx < 0) {
      continue;
    }
    switch (job->state) {
      case JobState::kConfiguring:
        if (running.contains(id)) {
          Confirm(*job, *entry, idx, now, effects);
        } else {
          effects.messages.push_back({node.id, LaunchMessage(*job, *entry, idx)});
        }
        break;
      case JobState::kRunning:
        if (!running.contains(id)) {
          if (idx == 0) {
            entry->lost_batch_since = now;  // unless its exit arrives, the job is lost
          } else {
            effects.messages.push_back({node.id, LaunchMessage(*job, *entry, idx)});
          }
        }
        break;
      case JobState::kCompleting:
        if (!entry->cleaned[idx]) {
          effects.messages.push_back({node.id, KillMessage(id, "job ended")});
        }
        break;
      default:
        break;
    }
  }
  return kill;
}

// ------------------------------------------------------------------ submit

absl::StatusOr<canopy::v1::SubmitJobResponse> JobLifecycle::Submit(
    const canopy::v1::SubmitJobRequest& request, const Caller& caller, absl::Time now,
    Effects& effects) {
  if (!caller.authenticated) {
    return absl::PermissionDeniedError(
        absl::StrCat("submitting a job needs the caller's identity, which canopyd takes from its "
                     "unix socket (",
                     config_->unix_socket,
                     "); run sbatch on the controller host, or point CANOPY_CONTROLLER at "
                     "unix:<that socket>"));
  }
  if (!request.idempotency_key().empty()) {
    if (auto it = idempotency_.find(request.idempotency_key()); it != idempotency_.end()) {
      canopy::v1::SubmitJobResponse response;
      response.set_job_id(it->second.value());
      return response;
    }
  }
  absl::StatusOr<ResolvedSpec> resolved = ResolveSpec(request.spec(), *config_, *topology_);
  if (!resolved.ok()) {
    return resolved.status();
  }
  std::vector<uint32_t> task_ids;
  bool is_array = !request.spec().array_spec().empty();
  if (request.spec().array_spec().find('%') != std::string::npos) {
    has_throttled_arrays_ = true;
  }
  if (is_array) {
    absl::StatusOr<ArraySpec> array = ParseArraySpec(request.spec().array_spec());
    if (!array.ok()) {
      return array.status();
    }
    task_ids = array->task_ids;
  } else {
    task_ids.push_back(0);
  }
  canopy::v1::SubmitJobResponse response;
  const uint32_t array_job_id = next_job_id_;
  for (uint32_t task : task_ids) {
    const core::JobId id(next_job_id_++);
    Job job;
    job.id = id;
    job.spec = resolved->core;
    job.spec.user = caller.user_name;
    job.submit_time = now;
    job.eligible_time = now;
    job.reason = resolved->blocked != core::JobReason::kNone ? resolved->blocked
                 : request.spec().hold()                     ? core::JobReason::kJobHeldUser
                                                             : core::JobReason::kNone;
    Entry entry;
    canopy::v1::Job& r = entry.record;
    *r.mutable_spec() = request.spec();
    if (r.spec().name().empty()) {
      r.mutable_spec()->set_name(r.spec().script().empty() ? "interactive" : "sbatch");
    }
    job.spec.name = r.spec().name();
    r.set_job_id(id.value());
    r.set_user_id(caller.uid);
    r.set_group_id(caller.gid);
    r.set_user_name(caller.user_name);
    for (uint32_t g : caller.groups) {
      r.add_supplementary_gids(g);
    }
    r.set_partition(resolved->partition->name);
    if (resolved->time_limit != absl::InfiniteDuration()) {
      *r.mutable_time_limit() = rpc::ToProtoDuration(resolved->time_limit);
    }
    if (is_array) {
      r.set_array_job_id(array_job_id);
      r.set_array_task_id(task);
      response.add_array_task_job_ids(id.value());
    }
    r.set_idempotency_key(request.idempotency_key());
    if (absl::Status s = jobs_.Add(std::move(job)); !s.ok()) {
      return absl::InternalError(s.message());
    }
    entries_.emplace(id, std::move(entry));
    Touch(id, effects);
  }
  if (!request.idempotency_key().empty()) {
    idempotency_[request.idempotency_key()] = core::JobId(array_job_id);
  }
  response.set_job_id(array_job_id);
  effects.next_id_changed = true;
  effects.schedule = true;
  effects.info.push_back(absl::StrCat(
      "job ", array_job_id, is_array ? absl::StrCat(" (array of ", task_ids.size(), ")") : "",
      " submitted by ", caller.user_name, ": ", resolved->core.min_nodes, " node(s) x ",
      resolved->core.gpus_per_node, " GPU(s) in ", resolved->partition->name));
  return response;
}

// ------------------------------------------------------------------ scheduling

void JobLifecycle::Schedule(absl::Time now, Effects& effects) {
  std::vector<const Job*> pending;
  absl::flat_hash_map<uint32_t, int> array_running;  // array job id -> tasks holding nodes
  for (const auto& [id, job] : jobs_.jobs()) {
    if (job.state == JobState::kPending && !Blocked(job.reason)) {
      pending.push_back(&job);
    } else if (has_throttled_arrays_ && HoldsNodes(job.state)) {
      const canopy::v1::Job& r = entries_.at(id).record;
      if (r.array_job_id() != 0) {
        ++array_running[r.array_job_id()];
      }
    }
  }
  pending_count_ = pending.size();
  if (pending.empty()) {
    return;
  }
  // Array throttles ("%N"): tasks beyond the limit wait this pass.
  if (has_throttled_arrays_) {
    std::vector<const Job*> allowed;
    allowed.reserve(pending.size());
    absl::flat_hash_map<uint32_t, int> limits;
    for (const Job* job : pending) {
      const canopy::v1::Job& r = entries_.at(job->id).record;
      if (r.array_job_id() == 0 || r.spec().array_spec().find('%') == std::string::npos) {
        allowed.push_back(job);
        continue;
      }
      auto [it, inserted] = limits.try_emplace(r.array_job_id(), 0);
      if (inserted) {
        absl::StatusOr<ArraySpec> spec = ParseArraySpec(r.spec().array_spec());
        it->second = spec.ok() ? spec->max_running : 0;
      }
      int& running = array_running[r.array_job_id()];
      if (it->second == 0 || running < it->second) {
        ++running;  // counts as started for the tasks after it, even if it does not fit
        allowed.push_back(job);
      }
    }
    pending.swap(allowed);
  }
  sort_->Sort(pending, now);
  const plan::Plan plan = plan::RunPass(view_, pending, now, *policy_);
  absl::StatusOr<plan::ApplyReport> report = applier_.Apply(plan, view_, jobs_, now);
  if (!report.ok()) {
    effects.warnings.push_back(absl::StrCat("scheduling pass failed: ", report.status().message()));
    return;
  }
  for (const plan::PlannedStart& start : plan.starts) {
    if (std::find(report->started.begin(), report->started.end(), start.job) ==
        report->started.end()) {
      continue;
    }
    Job* job = jobs_.Find(start.job);
    Entry* entry = FindEntry(start.job);
    entry->record.set_placement_explanation(start.explanation.ToString());
    Launch(*job, *entry, now, effects);
  }
  for (const plan::PendingNote& note : plan.pending) {
    Entry* entry = FindEntry(note.job);
    if (entry == nullptr) {
      continue;
    }
    const std::string reason(core::JobReasonName(note.reason));
    entry->record.set_placement_explanation(note.detail);
    // Persist only reason changes: the explanation of a waiting job is refreshed every pass.
    if (entry->record.reason() != reason) {
      Touch(note.job, effects);
    }
  }
}

std::vector<int> JobLifecycle::PickGpus(core::NodeId node, int count) {
  std::vector<int> picked;
  uint64_t& used = gpus_in_use_[node.value()];
  for (int g : gpu_indexes_[node.value()]) {
    if (static_cast<int>(picked.size()) == count) {
      break;
    }
    if (g >= 0 && g < 64 && (used & (uint64_t{1} << g)) == 0) {
      used |= uint64_t{1} << g;
      picked.push_back(g);
    }
  }
  return picked;
}

void JobLifecycle::Launch(Job& job, Entry& entry, absl::Time now, Effects& effects) {
  ++capacity_version_;
  const size_t n = job.allocation.nodes.size();
  entry.gpu_indexes.clear();
  for (const core::NodeShare& share : job.allocation.nodes) {
    entry.gpu_indexes.push_back(PickGpus(share.node, share.gpus));
    node_jobs_[share.node.value()].insert(job.id);
  }
  entry.confirmed.assign(n, false);
  entry.cleaned.clear();
  entry.launch_deadline = now + config_->launch_timeout;
  entry.cleanup_deadline = absl::InfiniteFuture();
  entry.lost_batch_since = absl::InfiniteFuture();
  entry.warned = false;
  entry.steps.clear();
  // state_message stays: after a requeue it still says why the job had to start again.
  entry.record.set_completing_to(canopy::v1::JOB_STATE_UNSPECIFIED);
  entry.record.set_exit_code(0);
  entry.record.set_exit_signal(0);
  entry.record.set_run_id(entry.record.run_id() + 1);
  job.exit_code = 0;
  job.exit_signal = 0;
  SyncRecord(job, *topology_, entry.gpu_indexes, entry.record);
  for (size_t i = 0; i < n; ++i) {
    effects.messages.push_back({job.allocation.nodes[i].node, LaunchMessage(job, entry, i)});
  }
  Touch(job.id, effects);
  effects.info.push_back(
      absl::StrCat("job ", job.id.value(), " starting on ",
                   slurm::CompressHostlist(std::vector<std::string>(entry.record.nodes().begin(),
                                                                    entry.record.nodes().end())),
                   " (", entry.record.placement_explanation(), ")"));
}

canopy::v1::ControllerMessage JobLifecycle::LaunchMessage(const Job& job, const Entry& entry,
                                                          size_t node_index) const {
  canopy::v1::ControllerMessage msg;
  canopy::v1::LaunchJob* launch = msg.mutable_launch_job();
  *launch->mutable_job() = entry.record;
  const core::NodeShare& share = job.allocation.nodes[node_index];
  launch->set_is_batch_host(node_index == 0);
  launch->set_node_index(static_cast<int32_t>(node_index));
  if (node_index < entry.gpu_indexes.size()) {
    for (int g : entry.gpu_indexes[node_index]) {
      launch->add_gpu_indexes(g);
    }
  }
  launch->set_cpus(share.cpus);
  launch->set_topology_addr(topology_->TopologyAddress(share.node));
  launch->set_topology_addr_pattern(topology_->TopologyAddressPattern(share.node));
  launch->set_cluster_name(config_->cluster_name);
  *launch->mutable_kill_wait() = rpc::ToProtoDuration(config_->kill_wait);
  return msg;
}

void JobLifecycle::Confirm(Job& job, Entry& entry, int node_index, absl::Time now,
                           Effects& effects) {
  if (job.state != JobState::kConfiguring) {
    return;
  }
  entry.confirmed[node_index] = true;
  if (std::all_of(entry.confirmed.begin(), entry.confirmed.end(), [](bool b) { return b; })) {
    (void)core::TransitionTo(job, JobState::kRunning, now);
    Touch(job.id, effects);
  }
}

// ------------------------------------------------------------------ cleanup holds

std::vector<JobLifecycle::CleanupHold> JobLifecycle::HoldsFor(const Job& job, const Entry& entry,
                                                              absl::Time now) const {
  std::vector<CleanupHold> holds;
  for (size_t i = 0; i < job.allocation.nodes.size(); ++i) {
    const core::NodeShare& share = job.allocation.nodes[i];
    if (!view_.node(share.node).up) {
      continue;  // a down node's processes count as gone
    }
    CleanupHold h;
    h.job = job.id;
    h.run_id = entry.record.run_id();
    h.share = share;
    h.exclusive = job.allocation.exclusive;
    if (i < entry.gpu_indexes.size()) {
      h.gpus = entry.gpu_indexes[i];
    }
    h.deadline = now + config_->kill_wait + kCleanupGrace;
    holds.push_back(std::move(h));
  }
  return holds;
}

void JobLifecycle::TakeHolds(std::vector<CleanupHold> holds, Effects& effects) {
  for (CleanupHold& h : holds) {
    const placement::NodeUse use{h.share.node, h.share.gpus, h.share.cpus, h.share.mem_mib};
    if (absl::Status s = view_.ApplyJob({&use, 1}, h.exclusive, /*start=*/true); !s.ok()) {
      effects.warnings.push_back(absl::StrCat("job ", h.job.value(), ": holding ",
                                              topology_->node_name(h.share.node),
                                              " until it cleans up: ", s.message()));
      continue;
    }
    for (int g : h.gpus) {
      if (g >= 0 && g < 64) {
        gpus_in_use_[h.share.node.value()] |= uint64_t{1} << g;
      }
    }
    ++capacity_version_;
    holds_.push_back(std::move(h));
  }
}

void JobLifecycle::ReleaseHolds(core::JobId job, core::NodeId node, uint32_t run_id,
                                Effects& effects) {
  for (auto it = holds_.begin(); it != holds_.end();) {
    const bool match = it->share.node == node && (!job.valid() || it->job == job) &&
                       (run_id == 0 || it->run_id == run_id);
    if (!match) {
      ++it;
      continue;
    }
    const placement::NodeUse use{it->share.node, it->share.gpus, it->share.cpus, it->share.mem_mib};
    (void)view_.ApplyJob({&use, 1}, it->exclusive, /*start=*/false);
    for (int g : it->gpus) {
      if (g >= 0 && g < 64) {
        gpus_in_use_[node.value()] &= ~(uint64_t{1} << g);
      }
    }
    ++capacity_version_;
    effects.schedule = true;
    it = holds_.erase(it);
  }
}

// ------------------------------------------------------------------ ending

void JobLifecycle::ForgetAllocation(const Job& job, Entry& entry) {
  ++capacity_version_;
  for (size_t i = 0; i < job.allocation.nodes.size(); ++i) {
    const int node = job.allocation.nodes[i].node.value();
    node_jobs_[node].erase(job.id);
    if (i < entry.gpu_indexes.size()) {
      for (int g : entry.gpu_indexes[i]) {
        if (g >= 0 && g < 64) {
          gpus_in_use_[node] &= ~(uint64_t{1} << g);
        }
      }
    }
  }
  entry.steps.clear();
}

canopy::v1::ControllerMessage JobLifecycle::KillMessage(core::JobId job,
                                                        const std::string& reason) const {
  canopy::v1::ControllerMessage msg;
  canopy::v1::KillJob* kill = msg.mutable_kill_job();
  kill->set_job_id(job.value());
  kill->set_reason(reason);
  *kill->mutable_kill_wait() = rpc::ToProtoDuration(config_->kill_wait);
  return msg;
}

void JobLifecycle::SendKill(const Job& job, const std::string& reason, Effects& effects) {
  for (const core::NodeShare& share : job.allocation.nodes) {
    effects.messages.push_back({share.node, KillMessage(job.id, reason)});
  }
}

void JobLifecycle::SendSignal(const Job& job, int signal, bool batch_only, Effects& effects) {
  // The batch shell runs on the first node: batch_only signals go there alone.
  const size_t nodes =
      batch_only ? std::min<size_t>(1, job.allocation.nodes.size()) : job.allocation.nodes.size();
  for (size_t i = 0; i < nodes; ++i) {
    canopy::v1::ControllerMessage msg;
    canopy::v1::SignalJob* sig = msg.mutable_signal_job();
    sig->set_job_id(job.id.value());
    sig->set_signal(signal);
    sig->set_batch_only(batch_only);
    effects.messages.push_back({job.allocation.nodes[i].node, std::move(msg)});
  }
}

void JobLifecycle::EndNow(Job& job, Entry& entry, JobState final_state, absl::Time now,
                          Effects& effects) {
  if (!core::IsLegalTransition(job.state, final_state)) {
    // A bug if it happens: leave everything as it is rather than half-end the job.
    effects.warnings.push_back(absl::StrCat("job ", job.id.value(), ": cannot end ",
                                            core::JobStateName(job.state), " job as ",
                                            core::JobStateName(final_state)));
    return;
  }
  // The record keeps the nodes the job ran on (SyncRecord leaves them for finished jobs).
  SyncRecord(job, *topology_, entry.gpu_indexes, entry.record);
  ForgetAllocation(job, entry);
  if (absl::Status s = plan::EndJob(view_, job, final_state, now); !s.ok()) {
    effects.warnings.push_back(std::string(s.message()));
    return;
  }
  entry.record.set_completing_to(canopy::v1::JOB_STATE_UNSPECIFIED);
  Touch(job.id, effects);
  effects.schedule = true;
  effects.info.push_back(absl::StrCat("job ", job.id.value(), " ended ",
                                      core::JobStateName(final_state), " (exit ", ExitString(job),
                                      ")"));
}

void JobLifecycle::BeginCompleting(Job& job, Entry& entry, JobState final_state,
                                   const std::string& why, absl::Time now, Effects& effects) {
  if (job.state == JobState::kConfiguring) {
    // Not every node confirmed yet: end it now, kill what may have started, and keep its
    // nodes' share held until they clean up.
    SendKill(job, why, effects);
    std::vector<CleanupHold> holds = HoldsFor(job, entry, now);
    EndNow(job, entry, final_state, now, effects);
    if (core::IsTerminal(job.state)) {
      TakeHolds(std::move(holds), effects);
    }
    return;
  }
  if (absl::Status s = core::TransitionTo(job, JobState::kCompleting, now); !s.ok()) {
    effects.warnings.push_back(std::string(s.message()));
    return;
  }
  entry.record.set_completing_to(ToProtoState(final_state));
  if (entry.record.state_message().empty()) {
    entry.record.set_state_message(why);
  }
  entry.cleaned.assign(job.allocation.nodes.size(), false);
  for (size_t i = 0; i < job.allocation.nodes.size(); ++i) {
    entry.cleaned[i] = !view_.node(job.allocation.nodes[i].node).up;  // down: nothing to clean
  }
  entry.cleanup_deadline = now + config_->kill_wait + kCleanupGrace;
  SendKill(job, why, effects);
  Touch(job.id, effects);
  FinishIfClean(job, entry, now, effects);
}

void JobLifecycle::FinishIfClean(Job& job, Entry& entry, absl::Time now, Effects& effects) {
  if (job.state != JobState::kCompleting) {
    return;
  }
  if (std::all_of(entry.cleaned.begin(), entry.cleaned.end(), [](bool b) { return b; })) {
    EndNow(job, entry, FromProtoState(entry.record.completing_to()), now, effects);
  }
}

void JobLifecycle::LoseJob(Job& job, Entry& entry, const std::string& why, absl::Time now,
                           Effects& effects) {
  if (job.state == JobState::kConfiguring) {
    // It never ran: back to the queue without counting a restart.
    AbortLaunchOf(job, entry, why, now, effects);
    return;
  }
  if (job.state != JobState::kRunning) {
    return;
  }
  SendKill(job, absl::StrCat("node failure: ", why), effects);
  std::vector<CleanupHold> holds = HoldsFor(job, entry, now);
  ForgetAllocation(job, entry);
  if (absl::Status s = plan::FailJobOnNodeLoss(view_, job, now); !s.ok()) {
    effects.warnings.push_back(std::string(s.message()));
    return;
  }
  TakeHolds(std::move(holds), effects);
  entry.record.set_state_message(why);
  Touch(job.id, effects);
  effects.schedule = true;
  effects.warnings.push_back(absl::StrCat(
      "job ", job.id.value(), " lost a node (", why, "): ",
      job.state == JobState::kPending ? "requeued" : std::string(core::JobStateName(job.state))));
}

void JobLifecycle::AbortLaunchOf(Job& job, Entry& entry, const std::string& why, absl::Time now,
                                 Effects& effects) {
  if (job.state != JobState::kConfiguring) {
    return;
  }
  SendKill(job, absl::StrCat("launch aborted: ", why), effects);
  std::vector<CleanupHold> holds = HoldsFor(job, entry, now);
  ForgetAllocation(job, entry);
  if (absl::Status s = plan::AbortLaunch(view_, job, core::JobReason::kResources, now); !s.ok()) {
    effects.warnings.push_back(std::string(s.message()));
    return;
  }
  TakeHolds(std::move(holds), effects);
  entry.record.set_state_message(why);
  Touch(job.id, effects);
  effects.schedule = true;
  effects.warnings.push_back(absl::StrCat("job ", job.id.value(), " back to PENDING: ", why));
}

// ------------------------------------------------------------------ cancel

canopy::v1::CancelJobResponse JobLifecycle::Cancel(const canopy::v1::CancelJobRequest& request,
                                                   const Caller& caller, absl::Time now,
                                                   Effects& effects) {
  canopy::v1::CancelJobResponse response;
  for (uint32_t raw : request.job_ids()) {
    canopy::v1::CancelResult* result = response.add_results();
    result->set_job_id(raw);
    // Cancelling an array's job id cancels every task of the array (scancel 5 for 5_[0-9]).
    std::vector<core::JobId> targets;
    const Entry* first = FindEntry(core::JobId(raw));
    if (first != nullptr && first->record.array_job_id() == raw) {
      for (const auto& [id, e] : entries_) {
        if (e.record.array_job_id() == raw) {
          targets.push_back(id);
        }
      }
    } else if (first != nullptr) {
      targets.push_back(core::JobId(raw));
    }
    if (targets.empty()) {
      result->set_error("Invalid job id specified");
      continue;
    }
    std::string error;
    bool any_ok = false;
    for (core::JobId id : targets) {
      Job* job = jobs_.Find(id);
      Entry* entry = FindEntry(id);
      if (!caller.MayControl(entry->record.user_id())) {
        error = caller.authenticated ? "Access/permission denied"
                                     : "Access/permission denied: connect over canopyd's unix "
                                       "socket so it knows who you are";
        continue;
      }
      if (core::IsTerminal(job->state) || job->state == JobState::kCompleting) {
        error = "Job/step already completing or completed";
        continue;
      }
      if (request.signal() != 0) {
        if (job->state == JobState::kPending) {
          error = "Job is pending execution";
          continue;
        }
        SendSignal(*job, request.signal(), request.batch_only(), effects);
        any_ok = true;
        continue;
      }
      const std::string why = absl::StrCat("cancelled by ", caller.user_name);
      if (job->state == JobState::kPending) {
        (void)core::TransitionTo(*job, JobState::kCancelled, now);
        entry->record.set_state_message(why);
        Touch(id, effects);
      } else {
        BeginCompleting(*job, *entry, JobState::kCancelled, why, now, effects);
      }
      effects.info.push_back(absl::StrCat("job ", id.value(), " ", why));
      any_ok = true;
    }
    result->set_ok(any_ok || error.empty());
    if (!result->ok()) {
      result->set_error(error);
    }
  }
  return response;
}

absl::Status JobLifecycle::CompleteJob(const canopy::v1::CompleteJobRequest& request,
                                       const Caller& caller, absl::Time now, Effects& effects) {
  const core::JobId id(request.job_id());
  absl::StatusOr<std::pair<Job*, Entry*>> found = FindControlled(id, caller);
  if (!found.ok()) {
    return found.status();
  }
  auto [job, entry] = *found;
  if (!entry->record.spec().script().empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", id.value(),
                     " runs a batch script and ends when the script ends; use scancel to stop it"));
  }
  if (job->state != JobState::kRunning) {
    return absl::FailedPreconditionError(absl::StrCat(
        "job ", id.value(), " is ", core::JobStateName(job->state),
        job->state == JobState::kConfiguring ? ", still starting; try again once it runs"
                                             : ", not running"));
  }
  job->exit_code = request.exit_code();
  job->exit_signal = request.exit_signal();
  const bool ok = request.exit_code() == 0 && request.exit_signal() == 0;
  BeginCompleting(*job, *entry, ok ? JobState::kCompleted : JobState::kFailed, "allocation ended",
                  now, effects);
  return absl::OkStatus();
}

// ------------------------------------------------------------------ steps

absl::StatusOr<canopy::v1::CreateStepResponse> JobLifecycle::CreateStep(
    const canopy::v1::CreateStepRequest& request, const Caller& caller, Effects& effects) {
  const core::JobId id(request.job_id());
  absl::StatusOr<std::pair<Job*, Entry*>> found = FindControlled(id, caller);
  if (!found.ok()) {
    return found.status();
  }
  auto [job, entry] = *found;
  if (job->state != JobState::kRunning && job->state != JobState::kConfiguring) {
    return absl::FailedPreconditionError(
        absl::StrCat("Job/step already completing or completed: job ", id.value(), " is ",
                     core::JobStateName(job->state)));
  }
  if (request.argv().empty()) {
    return absl::InvalidArgumentError("argv: no program to run");
  }
  if (request.io_address().empty() && request.stdout_path().empty()) {
    return absl::InvalidArgumentError("io_address: needed unless output goes to files");
  }
  absl::StatusOr<StepLayout> layout =
      LayOutStep(static_cast<int32_t>(job->allocation.nodes.size()), request.nodes(),
                 request.ntasks(), request.ntasks_per_node());
  if (!layout.ok()) {
    return layout.status();
  }
  const uint32_t step_id = entry->record.next_step_id();
  entry->record.set_next_step_id(step_id + 1);
  Touch(id, effects);
  std::vector<std::string> names;
  std::vector<core::NodeId> nodes;
  for (int i = 0; i < layout->nodes; ++i) {
    nodes.push_back(job->allocation.nodes[i].node);
    names.push_back(topology_->node_name(nodes.back()));
  }
  const std::string nodelist = slurm::CompressHostlist(names);
  canopy::v1::CreateStepResponse response;
  response.set_step_id(step_id);
  response.set_ntasks(layout->ntasks);
  for (int i = 0; i < layout->nodes; ++i) {
    canopy::v1::ControllerMessage msg;
    canopy::v1::LaunchStep* step = msg.mutable_launch_step();
    step->set_job_id(id.value());
    step->set_step_id(step_id);
    step->set_node_index(i);
    for (int t = 0; t < layout->tasks_per_node[i]; ++t) {
      step->add_task_ranks(layout->first_rank[i] + t);
    }
    step->set_ntasks(layout->ntasks);
    step->set_step_nodelist(nodelist);
    step->set_step_num_nodes(layout->nodes);
    step->set_tasks_per_node(layout->TasksPerNodeString());
    *step->mutable_argv() = request.argv();
    *step->mutable_environment() = request.environment();
    step->set_work_dir(request.work_dir());
    step->set_io_address(request.io_address());
    step->set_io_token(request.io_token());
    step->set_stdout_path(request.stdout_path());
    step->set_stderr_path(request.stderr_path());
    *step->mutable_kill_wait() = rpc::ToProtoDuration(config_->kill_wait);
    effects.messages.push_back({nodes[i], std::move(msg)});
    response.add_nodes(names[i]);
    response.add_tasks_per_node(layout->tasks_per_node[i]);
  }
  entry->steps[step_id] = nodes;
  effects.info.push_back(absl::StrCat("job ", id.value(), " step ", step_id, ": ", layout->ntasks,
                                      " task(s) on ", nodelist));
  return response;
}

absl::Status JobLifecycle::CancelStep(const canopy::v1::CancelStepRequest& request,
                                      const Caller& caller, Effects& effects) {
  const core::JobId id(request.job_id());
  absl::StatusOr<std::pair<Job*, Entry*>> found = FindControlled(id, caller);
  if (!found.ok()) {
    return found.status();
  }
  auto [job, entry] = *found;
  auto it = entry->steps.find(request.step_id());
  if (it == entry->steps.end()) {
    return absl::NotFoundError(absl::StrCat("Invalid job id specified: step ", id.value(), ".",
                                            request.step_id(), " is not running"));
  }
  for (core::NodeId node : it->second) {
    canopy::v1::ControllerMessage msg;
    canopy::v1::KillStep* kill = msg.mutable_kill_step();
    kill->set_job_id(id.value());
    kill->set_step_id(request.step_id());
    kill->set_signal(request.signal());
    *kill->mutable_kill_wait() = rpc::ToProtoDuration(config_->kill_wait);
    effects.messages.push_back({node, std::move(msg)});
  }
  return absl::OkStatus();
}

void JobLifecycle::StepStatus(core::NodeId node, const canopy::v1::StepStatus& status, Effects&) {
  Entry* entry = FindEntry(core::JobId(status.job_id()));
  if (entry == nullptr || !status.exited()) {
    return;
  }
  auto it = entry->steps.find(status.step_id());
  if (it == entry->steps.end()) {
    return;
  }
  std::vector<core::NodeId>& nodes = it->second;
  nodes.erase(std::remove(nodes.begin(), nodes.end(), node), nodes.end());
  if (nodes.empty()) {
    entry->steps.erase(it);
  }
}

// ------------------------------------------------------------------ agent reports

std::optional<canopy::v1::ControllerMessage> JobLifecycle::JobStatus(
    core::NodeId node, const canopy::v1::JobStatus& status, absl::Time now, Effects& effects) {
  using Phase = canopy::v1::JobStatus;
  std::optional<canopy::v1::ControllerMessage> ack;
  if (status.phase() == Phase::PHASE_EXITED || status.phase() == Phase::PHASE_CLEANED_UP) {
    canopy::v1::ControllerMessage msg;
    msg.mutable_job_status_ack()->set_job_id(status.job_id());
    msg.mutable_job_status_ack()->set_phase(status.phase());
    msg.mutable_job_status_ack()->set_run_id(status.run_id());
    ack = std::move(msg);
  }
  const core::JobId id(status.job_id());
  if (status.phase() == Phase::PHASE_CLEANED_UP && !holds_.empty()) {
    ReleaseHolds(id, node, status.run_id(), effects);
  }
  Job* job = jobs_.Find(id);
  Entry* entry = FindEntry(id);
  if (job == nullptr || entry == nullptr) {
    return ack;
  }
  const int idx = NodeIndexIn(*job, node);
  if (idx < 0) {
    return ack;  // a report from an earlier run of the job on other nodes
  }
  if (status.run_id() != 0 && status.run_id() != entry->record.run_id()) {
    return ack;  // about an earlier run of the job on this node (requeued or relaunched since)
  }
  const std::string& node_name = topology_->node_name(node);
  switch (status.phase()) {
    case Phase::PHASE_LAUNCHED:
      Confirm(*job, *entry, idx, now, effects);
      break;
    case Phase::PHASE_LAUNCH_FAILED:
      if (job->state == JobState::kConfiguring || job->state == JobState::kRunning) {
        // A launch that fails for a reason of the job's own (a missing work directory, an
        // unwritable output file) would fail again anywhere: the job fails, as in Slurm.
        job->exit_code = 1;
        entry->record.set_state_message(
            absl::StrCat("launch failed on ", node_name, ": ", status.message()));
        if (job->state == JobState::kConfiguring) {
          (void)core::TransitionTo(*job, JobState::kRunning, now);
        }
        BeginCompleting(*job, *entry, JobState::kFailed, "launch failed", now, effects);
        effects.warnings.push_back(absl::StrCat("job ", id.value(), ": launch failed on ",
                                                node_name, ": ", status.message()));
      }
      break;
    case Phase::PHASE_EXITED:
      if (idx != 0) {
        break;  // only the batch host runs the script
      }
      if (job->state == JobState::kConfiguring) {
        (void)core::TransitionTo(*job, JobState::kRunning, now);
      }
      if (job->state == JobState::kRunning) {
        job->exit_code = status.exit_code();
        job->exit_signal = status.exit_signal();
        const JobState final_state = status.out_of_memory() ? JobState::kOutOfMemory
                                     : (status.exit_code() == 0 && status.exit_signal() == 0)
                                         ? JobState::kCompleted
                                         : JobState::kFailed;
        BeginCompleting(*job, *entry, final_state, "batch script ended", now, effects);
      } else if (job->state == JobState::kCompleting) {
        // Ended by a cancel or the time limit: keep that outcome, record how the script died.
        job->exit_code = status.exit_code();
        job->exit_signal = status.exit_signal();
        Touch(id, effects);
      }
      break;
    case Phase::PHASE_CLEANED_UP:
      if (job->state == JobState::kCompleting) {
        entry->cleaned[idx] = true;
        FinishIfClean(*job, *entry, now, effects);
      }
      break;
    default:
      break;
  }
  return ack;
}

// ------------------------------------------------------------------ time

void JobLifecycle::Tick(absl::Time now, Effects& effects) {
  std::vector<std::pair<core::JobId, core::NodeId>> expired;
  for (const CleanupHold& h : holds_) {
    if (now >= h.deadline) {
      expired.push_back({h.job, h.share.node});
    }
  }
  for (const auto& [job, node] : expired) {
    effects.warnings.push_back(absl::StrCat("job ", job.value(), ": ", topology_->node_name(node),
                                            " did not confirm cleanup in time; its share of the "
                                            "node is free again"));
    ReleaseHolds(job, node, 0, effects);
  }
  std::vector<core::JobId> active;
  for (const absl::btree_set<core::JobId>& held : node_jobs_) {
    active.insert(active.end(), held.begin(), held.end());
  }
  std::sort(active.begin(), active.end());
  active.erase(std::unique(active.begin(), active.end()), active.end());
  for (core::JobId id : active) {
    Job* job = jobs_.Find(id);
    Entry* entry = FindEntry(id);
    if (job == nullptr || entry == nullptr) {
      continue;
    }
    switch (job->state) {
      case JobState::kConfiguring:
        if (now >= entry->launch_deadline) {
          std::vector<std::string> silent;
          for (size_t i = 0; i < entry->confirmed.size(); ++i) {
            if (!entry->confirmed[i]) {
              silent.push_back(topology_->node_name(job->allocation.nodes[i].node));
            }
          }
          AbortLaunchOf(*job, *entry,
                        absl::StrCat("launch not confirmed within ",
                                     absl::FormatDuration(config_->launch_timeout), " by ",
                                     slurm::CompressHostlist(silent)),
                        now, effects);
        }
        break;
      case JobState::kRunning: {
        const absl::Duration limit = job->spec.time_limit;
        if (limit != absl::InfiniteDuration()) {
          const absl::Time deadline = job->start_time + limit;
          const canopy::v1::JobSpec& spec = entry->record.spec();
          if (!entry->warned && spec.warn_signal() > 0 &&
              now >= deadline - rpc::FromProtoDuration(spec.warn_time())) {
            entry->warned = true;
            SendSignal(*job, spec.warn_signal(), spec.warn_batch_only(), effects);
          }
          if (now >= deadline) {
            entry->record.set_state_message("time limit reached");
            BeginCompleting(*job, *entry, JobState::kTimeout, "time limit", now, effects);
            effects.info.push_back(absl::StrCat("job ", id.value(), " reached its time limit (",
                                                absl::FormatDuration(limit), ")"));
            break;
          }
        }
        if (now >= entry->lost_batch_since + kLostBatchGrace) {
          LoseJob(*job, *entry,
                  absl::StrCat("the agent of ", topology_->node_name(job->allocation.nodes[0].node),
                               " no longer knows the job (agent restarted?)"),
                  now, effects);
        }
        break;
      }
      case JobState::kCompleting:
        if (now >= entry->cleanup_deadline) {
          std::vector<std::string> stuck;
          for (size_t i = 0; i < entry->cleaned.size(); ++i) {
            if (!entry->cleaned[i]) {
              stuck.push_back(topology_->node_name(job->allocation.nodes[i].node));
            }
          }
          effects.warnings.push_back(
              absl::StrCat("job ", id.value(), ": ", slurm::CompressHostlist(stuck),
                           " did not confirm cleanup in time; ending the job anyway"));
          EndNow(*job, *entry, FromProtoState(entry->record.completing_to()), now, effects);
        }
        break;
      default:
        break;
    }
  }
}

// ------------------------------------------------------------------ publishing

std::vector<persistence::JobRow> JobLifecycle::Publish(const absl::btree_set<core::JobId>& dirty) {
  std::vector<persistence::JobRow> rows;
  rows.reserve(dirty.size());
  for (core::JobId id : dirty) {
    Job* job = jobs_.Find(id);
    Entry* entry = FindEntry(id);
    if (job == nullptr || entry == nullptr) {
      continue;
    }
    SyncRecord(*job, *topology_, entry->gpu_indexes, entry->record);
    published_[id.value()] = std::make_shared<const canopy::v1::Job>(entry->record);
    persistence::JobRow row;
    row.id = id.value();
    row.state = std::string(core::JobStateName(job->state));
    entry->record.SerializeToString(&row.record);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace canopy::lifecycle
