// Effects: what handling one event asks the controller (or the simulator) to do, in order:
// persist the dirty jobs (one transaction with the rest of the batch), then, only once that
// commit succeeded, send the messages to the agents. Sending after the commit is what makes a
// launch safe against a crash: a job is never running on a node while the database still says
// it is pending.
//
// Messages are the core's own types; scheduler/server turns them into canopy.v1 messages, the
// simulator into simulated agent events. Plain value types.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/btree_set.h"
#include "common/slurm/task_layout.h"
#include "scheduler/core/ids.h"
#include "scheduler/core/job.h"
#include "scheduler/core/job_history.h"
#include "scheduler/lifecycle/commands.h"
#include "scheduler/plan/plan.h"

namespace canopy::lifecycle {

struct BackfillWork;  // backfill_work.h

// Run your part of the job: node `node_index` of `job`'s allocation (0 = the batch host). The
// record is the job as it was when the launch was decided, shared by every node's message.
struct LaunchJob {
  std::shared_ptr<const core::Job> job;
  int32_t node_index = 0;
};

struct SignalJob {
  core::JobId job;
  int32_t signal = 0;
  bool batch_only = false;  // only the batch shell, not the steps
};

// Kill every process of the job (SIGTERM, SIGKILL after KillWait) and say CLEANED_UP.
struct KillJob {
  core::JobId job;
  std::string reason;
};

// A step, laid out over the first `layout.nodes` nodes of its job; shared by its messages.
struct StepLaunch {
  StepRequest request;
  uint32_t step_id = 0;
  slurm::TaskLayout layout;
  std::string nodelist;  // the step's nodes, compressed
};

struct LaunchStep {
  std::shared_ptr<const StepLaunch> step;
  int32_t node_index = 0;  // within the step
};

struct KillStep {
  core::JobId job;
  uint32_t step_id = 0;
  int32_t signal = 0;  // 0 = SIGTERM, then SIGKILL after KillWait
};

// scontrol notify: show `message` on the srun of each step listed (this node runs a part of
// each), or, with none listed, on the batch script's standard error (sent to the batch host).
struct JobNotice {
  core::JobId job;
  std::string message;
  std::vector<uint32_t> step_ids;
};

// sattach: copy this node's part of the step's output to one more StepIo server as well.
struct StepAttach {
  core::JobId job;
  uint32_t step_id = 0;
  std::string io_address;
  std::string io_token;
};

// The controller has durably recorded an EXITED or CLEANED_UP report: the agent may forget it.
struct JobReportAck {
  core::JobId job;
  JobPhase phase = JobPhase::kExited;
  uint32_t run_id = 0;
};

using AgentMessage = std::variant<LaunchJob, SignalJob, KillJob, LaunchStep, KillStep, JobReportAck,
                                  JobNotice, StepAttach>;

struct OutgoingMessage {
  core::NodeId node;
  AgentMessage message;
};

// A job the scheduling pass started, with what placement knew about it.
struct StartNote {
  core::JobId job;
  // Fewest leaf switches any placement could have used at that point of the pass; -1 when the
  // pass did not compute it (LifecycleOptions::pass.compute_min_units).
  int32_t min_units_possible = -1;
};

// A node to drain (as the controller's own user) with `reason`: its agent failed to launch a job
// for a reason of the node's own.
struct NodeDrain {
  core::NodeId node;
  std::string reason;
};

struct Effects {
  absl::btree_set<core::JobId> dirty;  // jobs whose record changed: save and republish
  bool next_id_changed = false;
  std::vector<OutgoingMessage> messages;  // to agents, after the commit, in this order
  std::vector<StartNote> started;         // jobs the pass launched, in pass order
  std::vector<std::string> info;          // log lines
  std::vector<std::string> warnings;
  bool schedule = false;  // capacity was freed or a job arrived: run a pass soon
  // Jobs whose published copy is stale but whose stored record need not change (a pending
  // job's recomputed priority: derived, recomputed after a restart).
  absl::btree_set<core::JobId> republish;
  bool associations_changed = false;  // save the association tree with this batch
  bool qos_changed = false;           // save the QOS table with this batch
  bool usage_changed = false;         // save the usage ledger with this batch
  bool shares_changed = false;        // fair share or priorities were recomputed: republish
  // Accounting beyond the job records, saved with this batch: runs of requeued jobs that ended,
  // steps that started or ended (a later record of the same step replaces an earlier one).
  std::vector<core::JobAttempt> attempts;
  std::vector<core::StepRecord> steps;
  // Finished jobs older than MinJobAge that left memory: the store keeps them for accounting
  // only, and the controller stops publishing them.
  std::vector<core::JobId> forgotten;
  std::vector<NodeDrain> drains;  // applied by the controller in this batch, before the pass
  // What the scheduling pass of this batch did, if one ran (the controller's metrics).
  std::optional<plan::PassStats> pass;
  bool pass_backfilled = false;  // that pass searched for reservations (backfill)
  // A backfill pass to plan on another thread and hand back to JobLifecycle::BackfillPlanned
  // (backfill_work.h; only with LifecycleState::plan_backfill_elsewhere).
  std::shared_ptr<BackfillWork> backfill_work;

  // Queues `message` for `node`'s agent.
  template <typename Message>
  void Send(core::NodeId node, Message message) {
    OutgoingMessage& out = messages.emplace_back();
    out.node = node;
    out.message.emplace<Message>(std::move(message));
  }
};

}  // namespace canopy::lifecycle
