// Controller's node commands (controller.h): admin changes and the agents' stream events
// (registration, heartbeats, GPU health, a stream closing).
#include <future>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log/absl_format.h"
#include "scheduler/server/controller.h"
#include "scheduler/server/controller_command.h"
#include "spdlog/spdlog.h"

namespace canopy::server {

absl::StatusOr<std::vector<std::string>> Controller::UpdateNodes(std::vector<std::string> names,
                                                                 state::NodeAdminAction action,
                                                                 std::string reason,
                                                                 std::string user) {
  auto result = std::make_shared<std::promise<absl::StatusOr<std::vector<std::string>>>>();
  std::future<absl::StatusOr<std::vector<std::string>>> future = result->get_future();
  const bool posted = Post([this, names = std::move(names), action, reason = std::move(reason),
                            user = std::move(user), result](Batch& batch) {
    absl::StatusOr<std::vector<core::NodeId>> ids =
        state_.UpdateNodes(names, action, reason, user, clock_->Now());
    if (!ids.ok()) {
      result->set_value(ids.status());
      return;
    }
    std::vector<std::string> changed;
    for (core::NodeId id : *ids) {
      SaveAdminState(id, batch);
      NodeTouched(id, batch);
      changed.push_back(state_.node(id).name);
    }
    spdlog::info("{} set {} on {} node(s){}", user,
                 action == state::NodeAdminAction::kDrain  ? "DRAIN"
                 : action == state::NodeAdminAction::kDown ? "DOWN"
                                                           : "RESUME",
                 changed.size(), reason.empty() ? "" : absl::StrCat(": ", reason));
    batch.visible_change = true;
    nodes_dirty_ = true;
    batch.after_commit.push_back(
        [result, changed = std::move(changed)](const absl::Status& committed) mutable {
          if (committed.ok()) {
            result->set_value(std::move(changed));
          } else {
            result->set_value(committed);
          }
        });
  });
  if (!posted) {
    return absl::UnavailableError("canopyd is shutting down; try again when it is back");
  }
  return AwaitAnswer(future);
}

core::NodeId Controller::SessionNode(const std::shared_ptr<AgentOutbox>& outbox) const {
  auto it = session_nodes_.find(outbox.get());
  return it == session_nodes_.end() ? core::NodeId() : it->second;
}

void Controller::AgentRegistered(std::string node_name, state::NodeRegistration registration,
                                 std::vector<lifecycle::RunningJob> running,
                                 std::shared_ptr<AgentOutbox> outbox,
                                 std::function<void(absl::StatusOr<Registered>)> done) {
  // `done` is shared so the refusal path can still call it after Post() took the command.
  auto shared_done =
      std::make_shared<std::function<void(absl::StatusOr<Registered>)>>(std::move(done));
  const bool posted =
      Post([this, node_name = std::move(node_name), registration = std::move(registration),
            running = std::move(running), outbox, shared_done](Batch& batch) mutable {
        const bool was_drained = [&] {
          absl::StatusOr<core::NodeId> id = state_.FindNode(node_name);
          return id.ok() && state_.node(*id).drain;
        }();
        absl::StatusOr<core::NodeId> id =
            state_.RegisterNode(node_name, std::move(registration), clock_->Now());
        if (!id.ok()) {
          spdlog::warn("refused registration: {}", id.status().message());
          (*shared_done)(id.status());
          return;
        }
        std::shared_ptr<AgentOutbox>& session = sessions_[id->value()];
        if (session != nullptr && session != outbox) {
          session->Close(grpc::Status(grpc::StatusCode::ABORTED,
                                      "replaced by a newer connection for this node"));
          session_nodes_.erase(session.get());
        }
        session = outbox;
        session_nodes_[outbox.get()] = *id;
        const state::NodeRecord& node = state_.node(*id);
        if (node.drain && !was_drained) {
          spdlog::warn("node {} drained at registration: {}", node.name, node.reason);
          SaveAdminState(*id, batch);
        }
        spdlog::info("node {} registered ({} GPUs, agent {} on {})", node.name,
                     node.registration.gpus.size(), node.registration.agent_version,
                     node.registration.hostname);
        batch.visible_change = true;
        nodes_dirty_ = true;
        NodeTouched(*id, batch);
        Registered registered;
        registered.node = *id;
        registered.kill_job_ids = jobs_->NodeRegistered(node, running, batch.effects);
        // The agent learns it is registered only once any drain caused by its report is durable
        // (and before the messages the registration caused: Deliver runs after this).
        // Called with an error only when canopyd stops with the change unsaved: the agent then
        // hears that, not "registered", and registers again with the next canopyd.
        batch.after_commit.push_back(
            [registered = std::move(registered), shared_done](const absl::Status& saved) mutable {
              if (!saved.ok()) {
                (*shared_done)(saved);
                return;
              }
              (*shared_done)(std::move(registered));
            });
      });
  if (!posted) {
    (*shared_done)(absl::UnavailableError("canopyd is shutting down"));
  }
}

void Controller::AgentHeard(std::shared_ptr<AgentOutbox> outbox, uint64_t heartbeat_sequence) {
  const absl::Time now = clock_->Now();
  {
    absl::MutexLock lock(&heard_mu_);
    heard_.emplace_back(outbox, now);
  }
  if (heartbeat_sequence != 0) {
    // Recorded: the owner folds it in before anything (a node timeout) can depend on it. Not
    // after a commit either: a heartbeat changes nothing durable.
    canopy::v1::ControllerMessage ack;
    ack.mutable_heartbeat_ack()->set_sequence(heartbeat_sequence);
    outbox->Send(std::move(ack));
  }
}

void Controller::FoldHeard() {
  std::vector<std::pair<std::shared_ptr<AgentOutbox>, absl::Time>> heard;
  {
    absl::MutexLock lock(&heard_mu_);
    heard.swap(heard_);
  }
  for (const auto& [outbox, when] : heard) {
    if (core::NodeId node = SessionNode(outbox); node.valid()) {
      state_.NoteHeard(node, when);
      heard_since_publish_ = true;
    }
  }
}

void Controller::ApplyDrains(Batch& batch) {
  for (const lifecycle::NodeDrain& drain : batch.effects.drains) {
    const std::string name = state_.node(drain.node).name;
    absl::StatusOr<std::vector<core::NodeId>> ids =
        state_.UpdateNodes({name}, state::NodeAdminAction::kDrain, drain.reason,
                           state::kControllerUser, clock_->Now());
    if (!ids.ok()) {
      spdlog::error("could not drain {}: {}", name, ids.status().message());
      continue;
    }
    for (core::NodeId id : *ids) {
      SaveAdminState(id, batch);
      NodeTouched(id, batch);
    }
    spdlog::warn("node {} drained: {}", name, drain.reason);
    batch.visible_change = true;
    nodes_dirty_ = true;
  }
  batch.effects.drains.clear();
}

void Controller::AgentGpuHealth(std::vector<state::GpuStatus> gpus,
                                std::shared_ptr<AgentOutbox> outbox) {
  Post([this, gpus = std::move(gpus), outbox = std::move(outbox)](Batch& batch) mutable {
    const core::NodeId node = SessionNode(outbox);
    if (!node.valid()) {
      return;
    }
    for (const state::GpuStatus& gpu : gpus) {
      if (!gpu.healthy) {
        spdlog::warn("node {} GPU {} unhealthy: {}", state_.node(node).name, gpu.index,
                     gpu.health_reason);
      }
    }
    state_.UpdateGpus(node, std::move(gpus), clock_->Now());
    NodeTouched(node, batch);
    batch.visible_change = true;
    nodes_dirty_ = true;
  });
}

void Controller::AgentStreamClosed(std::shared_ptr<AgentOutbox> outbox) {
  Post([this, outbox = std::move(outbox)](Batch& batch) {
    const core::NodeId node = SessionNode(outbox);
    if (!node.valid()) {
      return;  // never registered, or already replaced by a newer stream: not news
    }
    sessions_[node.value()] = nullptr;
    session_nodes_.erase(outbox.get());
    state_.StreamClosed(node, clock_->Now());
    NodeTouched(node, batch);
    spdlog::info("node {}: agent stream closed; DOWN after {} unless it reconnects",
                 state_.node(node).name, absl::FormatDuration(config_->node_timeout));
    batch.visible_change = true;
    nodes_dirty_ = true;
  });
}

}  // namespace canopy::server
