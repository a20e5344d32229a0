#include "scheduler/server/agent_service.h"

#include <deque>
#include <memory>

#include "absl/synchronization/mutex.h"
#include "common/log/absl_format.h"
#include "common/rpc/reaction_order.h"
#include "common/rpc/status_convert.h"
#include "scheduler/server/proto_convert.h"
#include "spdlog/spdlog.h"

namespace canopy::server {
namespace {

using canopy::v1::AgentMessage;
using canopy::v1::ControllerMessage;

// One agent stream. Reads run one at a time (gRPC allows one outstanding read); writes are
// queued and issued one at a time (one outstanding write). Deletes itself in OnDone().
class AgentStream final : public grpc::ServerBidiReactor<AgentMessage, ControllerMessage>,
                          public AgentStreamSink {
 public:
  AgentStream(Controller* controller, const AgentAdmission* admission,
              const grpc::CallbackServerContext* context)
      : controller_(controller),
        admission_(admission),
        context_(context),
        peer_(context->peer()),
        outbox_(std::make_shared<AgentOutbox>(this)) {
    rpc::ReactionHandOver(&in_);
    StartRead(&in_);
  }

  // AgentStreamSink: called through the outbox (under its lock) from the owner thread.
  void Send(ControllerMessage message) override {
    absl::MutexLock lock(&mu_);
    if (finishing_) {
      return;
    }
    out_.push_back(std::move(message));
    if (!writing_) {
      writing_ = true;
      rpc::ReactionHandOver(&out_);
      StartWrite(&out_.front());
    }
  }

  void Close(grpc::Status status) override {
    absl::MutexLock lock(&mu_);
    FinishLocked(std::move(status));
  }

  void OnReadDone(bool ok) override {
    rpc::ReactionTakeOver(&in_);
    if (!ok) {
      // The agent hung up or the connection broke. The controller ignores this for a stream
      // that never registered.
      controller_->AgentStreamClosed(outbox_);
      {
        absl::MutexLock lock(&mu_);
        FinishLocked(grpc::Status::OK);
      }
      rpc::ReactionHandOver(&in_);
      return;
    }
    Handle(in_);
    in_.Clear();
    rpc::ReactionHandOver(&in_);
    StartRead(&in_);
  }

  void OnWriteDone(bool ok) override {
    // Taken over before mu_ is locked: this thread may never have seen the stream before, and
    // gRPC's own ordering (invisible to TSan) is all that puts the mutex's construction first.
    rpc::ReactionTakeOver(&out_);
    absl::MutexLock lock(&mu_);
    out_.pop_front();
    if (!ok) {
      out_.clear();
    }
    // Messages queued before Close() still go out; Finish follows the last one.
    if (!out_.empty()) {
      rpc::ReactionHandOver(&out_);
      StartWrite(&out_.front());
      return;
    }
    writing_ = false;
    if (pending_finish_.has_value()) {
      rpc::ReactionHandOver(&out_);
      Finish(*pending_finish_);
      pending_finish_.reset();
    }
  }

  void OnDone() override {
    // Every other reaction has returned (gRPC's promise): the read side hands over through
    // in_, the write side through out_, and Close through mu_, which it only touches the stream
    // under.
    rpc::ReactionTakeOver(&in_);
    rpc::ReactionTakeOver(&out_);
    { absl::MutexLock lock(&mu_); }
    outbox_->Detach();
    delete this;
  }

 private:
  void Handle(const AgentMessage& message) {
    switch (message.payload_case()) {
      case AgentMessage::kRegister: {
        if (registered_) {
          return;  // a second Register on one stream is ignored; the first one stands
        }
        const canopy::v1::Register& reg = message.register_();
        if (absl::Status admitted = admission_->Admit(*context_, message); !admitted.ok()) {
          spdlog::warn("refused the registration of node {} from {} (agent on {}): {}",
                       reg.node_name(), peer_, reg.hostname(), admitted.message());
          absl::MutexLock lock(&mu_);
          FinishLocked(rpc::ToGrpcStatus(admitted));
          return;
        }
        registered_ = true;
        spdlog::debug("register {} from {}", reg.node_name(), peer_);
        // The callback runs on the owner thread, possibly after this reactor is gone: it may
        // only use the outbox (which outlives us) and copied values.
        ControllerMessage ack;
        ack.mutable_register_ack()->set_cluster_name(controller_->config().cluster_name);
        *ack.mutable_register_ack()->mutable_heartbeat_interval() =
            rpc::ToProtoDuration(controller_->config().heartbeat_interval);
        if (const absl::Duration timeout = controller_->config().node_timeout;
            timeout != absl::InfiniteDuration()) {
          *ack.mutable_register_ack()->mutable_node_timeout() = rpc::ToProtoDuration(timeout);
        }
        controller_->AgentRegistered(
            reg.node_name(), FromProto(reg), RunningJobsFromProto(reg), outbox_,
            [outbox = outbox_,
             ack = std::move(ack)](absl::StatusOr<Controller::Registered> registered) mutable {
              if (registered.ok()) {
                for (uint32_t id : registered->kill_job_ids) {
                  ack.mutable_register_ack()->add_kill_job_ids(id);
                }
                outbox->Send(std::move(ack));
              } else {
                outbox->Close(rpc::ToGrpcStatus(registered.status()));
              }
            });
        return;
      }
      default:
        break;
    }
    if (!registered_) {
      // Reports and heartbeats count only on a stream whose registration was admitted.
      if (!warned_unregistered_) {
        warned_unregistered_ = true;
        spdlog::warn("{}: ignoring messages sent before a registration", peer_);
      }
      return;
    }
    switch (message.payload_case()) {
      case AgentMessage::kGpuHealth:
        controller_->AgentGpuHealth(GpusFromProto(message.gpu_health().gpus()), outbox_);
        return;
      case AgentMessage::kJobStatus:
        if (std::optional<lifecycle::JobReport> report = FromProto(message.job_status())) {
          controller_->AgentJobStatus(*std::move(report), outbox_);
        } else {
          spdlog::warn("{}: ignoring a report on job {} with unknown phase {}", peer_,
                       message.job_status().job_id(),
                       static_cast<int>(message.job_status().phase()));
        }
        return;
      case AgentMessage::kStepStatus:
        controller_->AgentStepStatus(FromProto(message.step_status()), outbox_);
        return;
      case AgentMessage::kHeartbeat:
        // Proves the agent alive; acknowledged once the controller has recorded it.
        controller_->AgentHeard(outbox_, message.heartbeat().sequence());
        return;
      default:
        controller_->AgentHeard(outbox_);
        return;
    }
  }

  void FinishLocked(grpc::Status status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finishing_) {
      return;
    }
    finishing_ = true;
    if (writing_) {
      pending_finish_ = std::move(status);  // Finish once the write in flight is done
    } else {
      Finish(std::move(status));
    }
  }

  Controller* const controller_;
  const AgentAdmission* const admission_;
  const grpc::CallbackServerContext* const context_;  // gRPC's, valid until OnDone()
  const std::string peer_;
  const std::shared_ptr<AgentOutbox> outbox_;
  AgentMessage in_;                   // touched only by the read chain
  bool registered_ = false;           // touched only by the read chain
  bool warned_unregistered_ = false;  // touched only by the read chain

  absl::Mutex mu_;
  std::deque<ControllerMessage> out_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool finishing_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<grpc::Status> pending_finish_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

grpc::ServerBidiReactor<AgentMessage, ControllerMessage>* AgentServiceImpl::Connect(
    grpc::CallbackServerContext* context) {
  return new AgentStream(controller_, &admission_, context);
}

}  // namespace canopy::server
