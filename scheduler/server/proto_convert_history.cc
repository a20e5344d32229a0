// sacct's wire types (proto_convert_history.h).
#include "scheduler/server/proto_convert_history.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/rpc/status_convert.h"
#include "scheduler/server/proto_convert.h"

namespace canopy::server {
namespace {

using rpc::FromProtoTime;
using rpc::ToProtoTime;

void SetTime(absl::Time t, google::protobuf::Timestamp* out) {
  if (t != absl::InfinitePast()) {
    *out = ToProtoTime(t);
  }
}

// The batch step's state: the job's, except that a run ended by the controller (time limit,
// preemption, requeue, node failure) shows the batch shell as Slurm does: CANCELLED.
core::JobState BatchState(core::JobState job_state,
                          const std::optional<core::JobState>& completing_to) {
  switch (job_state) {
    case core::JobState::kConfiguring:
    case core::JobState::kRunning:
      return core::JobState::kRunning;
    case core::JobState::kCompleting:
      return completing_to.has_value() ? BatchState(*completing_to, std::nullopt)
                                       : core::JobState::kRunning;
    case core::JobState::kTimeout:
    case core::JobState::kPreempted:
    case core::JobState::kRequeued:
    case core::JobState::kNodeFail:
      return core::JobState::kCancelled;
    default:
      return job_state;
  }
}

// A run the controller ended (its time limit, scancel, preemption, a node's failure, a
// requeue): slurmctld writes the job's accounting record at that moment, before the batch
// script's exit is known, so sacct's job line shows 0:0 there while the batch step shows the
// signal the script died of (TIMEOUT 0:0, batch CANCELLED 0:15).
bool EndedByTheController(core::JobState state) {
  switch (state) {
    case core::JobState::kCancelled:
    case core::JobState::kTimeout:
    case core::JobState::kPreempted:
    case core::JobState::kNodeFail:
    case core::JobState::kRequeued:
      return true;
    default:
      return false;
  }
}

// One run of a job: its state and times as given, its nodes, its steps.
struct Run {
  int32_t attempt = 0;
  core::JobState state = core::JobState::kPending;
  std::optional<core::JobState> completing_to;
  absl::Time start = absl::InfinitePast();
  absl::Time end = absl::InfinitePast();
  int32_t exit_code = 0;
  int32_t exit_signal = 0;
  const std::vector<persistence::HistoryNode>* nodes = nullptr;
};

void AddRun(const persistence::HistoryJob& h, const Run& run, bool earlier,
            const topology::Topology& topology, canopy::v1::ListAccountingResponse& out) {
  canopy::v1::AccountingRecord* record = out.add_records();
  record->set_earlier_attempt(earlier);
  if (h.job.cancelled_by.has_value() && !earlier) {
    record->set_cancelled_by_uid(*h.job.cancelled_by);
  }
  canopy::v1::Job& job = *record->mutable_job();
  job = ToProto(h.job, topology);
  // History is not the place for scripts and environments (and ToProto's copy is cut anyway).
  job.mutable_spec()->clear_script();
  job.mutable_spec()->clear_environment();
  job.mutable_spec()->clear_argv();
  job.clear_nodes();
  job.clear_gpus_per_node_allocated();
  job.clear_cpus_allocated();
  job.clear_mem_allocated_mib();
  job.clear_node_gpu_indexes();
  job.clear_leaf_switches();
  for (const persistence::HistoryNode& n : *run.nodes) {
    job.add_nodes(n.name);
    job.add_gpus_per_node_allocated(n.gpus);
    job.add_cpus_allocated(n.cpus);
    job.add_mem_allocated_mib(n.mem_mib);
    job.add_node_gpu_indexes("");
  }
  if (earlier) {
    job.set_state(ToProtoState(run.state));
    job.set_restart_count(run.attempt);
    job.clear_start_time();
    job.clear_end_time();
    SetTime(run.start, job.mutable_start_time());
    SetTime(run.end, job.mutable_end_time());
    job.set_exit_code(run.exit_code);
    job.set_exit_signal(run.exit_signal);
    job.set_completing_to(canopy::v1::JOB_STATE_UNSPECIFIED);
  } else if (run.state == core::JobState::kPending) {
    // Requeued and waiting: the times of the run before belong to its own record.
    job.clear_start_time();
    job.clear_end_time();
  }
  const core::JobState ended = run.state == core::JobState::kCompleting && run.completing_to
                                   ? *run.completing_to
                                   : run.state;
  if (EndedByTheController(ended)) {
    job.set_exit_code(0);
    job.set_exit_signal(0);
  }
  if (!h.job.allocation_only() && run.start != absl::InfinitePast() && !run.nodes->empty()) {
    canopy::v1::AccountingStep* batch = record->add_steps();
    batch->set_step_id("batch");
    batch->set_name("batch");
    batch->set_state(ToProtoState(BatchState(run.state, run.completing_to)));
    batch->set_exit_code(run.exit_code);
    batch->set_exit_signal(run.exit_signal);
    SetTime(run.start, batch->mutable_start_time());
    if (core::IsTerminal(run.state)) {  // else still running: no end yet
      SetTime(run.end, batch->mutable_end_time());
    }
    const persistence::HistoryNode& first = run.nodes->front();
    batch->add_nodes(first.name);
    batch->set_ntasks(1);
    batch->set_ncpus(first.cpus);
    batch->set_mem_mib(0);  // as Slurm shows the batch step: mem=0 (the job's memory)
    batch->set_gpus(first.gpus);
  }
  for (const persistence::HistoryStep& s : h.steps) {
    if (s.record.attempt != run.attempt) {
      continue;
    }
    canopy::v1::AccountingStep* step = record->add_steps();
    step->set_step_id(absl::StrCat(s.record.step_id));
    step->set_name(s.record.name);
    step->set_state(ToProtoState(s.record.state));
    step->set_exit_code(s.record.exit_code);
    step->set_exit_signal(s.record.exit_signal);
    SetTime(s.record.start_time, step->mutable_start_time());
    SetTime(s.record.end_time, step->mutable_end_time());
    for (const std::string& n : s.node_names) {
      step->add_nodes(n);
    }
    step->set_ntasks(s.record.ntasks);
    step->set_ncpus(s.record.cpus);
    step->set_gpus(s.record.gpus);
  }
}

}  // namespace

persistence::HistoryQuery FromProto(const canopy::v1::ListAccountingRequest& r) {
  persistence::HistoryQuery q;
  q.job_ids.assign(r.job_ids().begin(), r.job_ids().end());
  for (const canopy::v1::ArrayTaskId& t : r.array_tasks()) {
    q.array_tasks.push_back({t.array_job_id(), t.array_task_id()});
  }
  q.user_ids.assign(r.user_ids().begin(), r.user_ids().end());
  q.accounts.assign(r.accounts().begin(), r.accounts().end());
  q.partitions.assign(r.partitions().begin(), r.partitions().end());
  q.names.assign(r.job_names().begin(), r.job_names().end());
  q.qos.assign(r.qos().begin(), r.qos().end());
  q.nodes.assign(r.nodes().begin(), r.nodes().end());
  for (int s : r.states()) {
    q.states.push_back(FromProtoState(static_cast<canopy::v1::JobState>(s)));
  }
  if (r.has_window_start()) {
    q.window_start = FromProtoTime(r.window_start());
  }
  if (r.has_window_end()) {
    q.window_end = FromProtoTime(r.window_end());
  }
  q.include_steps = r.include_steps();
  q.duplicates = r.duplicates();
  return q;
}

void AppendAccounting(const persistence::HistoryJob& h, const topology::Topology& topology,
                      canopy::v1::ListAccountingResponse& out) {
  for (const persistence::HistoryAttempt& a : h.earlier) {
    Run run;
    run.attempt = a.attempt.attempt;
    run.state = a.attempt.state;
    run.start = a.attempt.start_time;
    run.end = a.attempt.end_time;
    run.exit_code = a.attempt.exit_code;
    run.exit_signal = a.attempt.exit_signal;
    run.nodes = &a.nodes;
    AddRun(h, run, /*earlier=*/true, topology, out);
  }
  if (!h.last_selected) {
    return;
  }
  Run last;
  last.attempt = h.job.restart_count;
  last.state = h.job.state;
  last.completing_to = h.job.completing_to;
  last.start = h.job.start_time;
  last.end = h.job.end_time;
  last.exit_code = h.job.exit_code;
  last.exit_signal = h.job.exit_signal;
  last.nodes = &h.nodes;
  AddRun(h, last, /*earlier=*/false, topology, out);
}

}  // namespace canopy::server
