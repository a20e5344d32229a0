// ControllerStream: one AgentService.Connect call of a node, on gRPC's callback (reactor) API.
//
// An agent hosts up to thousands of (virtual) nodes, each with its own stream; driven by gRPC's
// completion threads, they need no thread each. The stream keeps one read armed at all times and
// hands every ControllerMessage to `on_message`, in order, from a gRPC thread (the next read is
// armed only once it returns, so a node's messages are handled one at a time). Writes are queued
// and sent one after another; Write() never blocks. `on_done` runs once, when the call has ended
// (controller gone, stream refused, Cancel()), after the last `on_message`.
//
// Lifetime: once started, the stream keeps itself alive until `on_done` has returned; holders
// keep it with a shared_ptr (one never started goes with its last holder). Thread-safe.
#pragma once

#include <deque>
#include <functional>
#include <memory>

#include "absl/synchronization/mutex.h"
#include "canopy/v1/agent.grpc.pb.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/client_callback.h"

namespace canopy::agent {

class ControllerStream final
    : public grpc::ClientBidiReactor<canopy::v1::AgentMessage, canopy::v1::ControllerMessage>,
      public std::enable_shared_from_this<ControllerStream> {
 public:
  using MessageHandler = std::function<void(const canopy::v1::ControllerMessage&)>;
  using DoneHandler = std::function<void(const grpc::Status&)>;

  // A stream on `context` (already signed, if the cluster signs calls) whose first message will
  // be `first`; nothing is sent until Start(). Two steps, so that the holder can publish the
  // stream before any of its callbacks can run: a handler that answers the controller's first
  // message (RegisterAck) must find the stream to write on.
  static std::shared_ptr<ControllerStream> Create(std::unique_ptr<grpc::ClientContext> context,
                                                  canopy::v1::AgentMessage first,
                                                  MessageHandler on_message, DoneHandler on_done);
  // Starts the call (once). `stub` must outlive it. Writes made before are sent after `first`.
  void Start(canopy::v1::AgentService::Stub* stub);

  // Queues `message`; false (and dropped) once the stream has failed or ended.
  bool Write(canopy::v1::AgentMessage message);
  // Ends the call (on_done follows with CANCELLED).
  void Cancel() { context_->TryCancel(); }

 private:
  ControllerStream(std::unique_ptr<grpc::ClientContext> context, MessageHandler on_message,
                   DoneHandler on_done);

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnDone(const grpc::Status& status) override;

  const std::unique_ptr<grpc::ClientContext> context_;
  const MessageHandler on_message_;
  const DoneHandler on_done_;
  canopy::v1::ControllerMessage incoming_;  // the armed read's buffer

  absl::Mutex mu_;
  // Queued messages; the front one is being written while `writing_`. A deque keeps the front's
  // address stable while later ones are queued behind it.
  std::deque<canopy::v1::AgentMessage> outbox_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;  // a read or write failed: the call is over
  // The hold taken at Start keeps the call open while a Write() may still start a write; it is
  // released once none can (the call failed and no write is in flight).
  bool hold_released_ ABSL_GUARDED_BY(mu_) = false;
  std::shared_ptr<ControllerStream> self_;  // from Start until OnDone returns
};

}  // namespace canopy::agent
