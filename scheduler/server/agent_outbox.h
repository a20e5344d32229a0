// AgentOutbox: the controller's handle for sending messages down one agent stream.
//
// The stream (a gRPC callback reactor) may end at any moment on a gRPC thread; the controller's
// owner thread may still hold the outbox. The outbox outlives the reactor (shared_ptr) and turns
// every call after the stream ended into a no-op, so the controller never touches a deleted
// reactor. Thread-safe.
#pragma once

#include <string>

#include "absl/synchronization/mutex.h"
#include "canopy/v1/agent.pb.h"
#include "grpcpp/support/status.h"

namespace canopy::server {

// The operations an outbox forwards to its live stream. Implemented by AgentStream.
class AgentStreamSink {
 public:
  virtual ~AgentStreamSink() = default;
  virtual void Send(canopy::v1::ControllerMessage message) = 0;
  virtual void Close(grpc::Status status) = 0;
};

class AgentOutbox {
 public:
  explicit AgentOutbox(AgentStreamSink* sink) : sink_(sink) {}

  // Queues a message for the agent; dropped if the stream has ended.
  void Send(canopy::v1::ControllerMessage message) {
    absl::MutexLock lock(&mu_);
    if (sink_ != nullptr) {
      sink_->Send(std::move(message));
    }
  }
  // Ends the stream with `status` (after queued messages are written).
  void Close(grpc::Status status) {
    absl::MutexLock lock(&mu_);
    if (sink_ != nullptr) {
      sink_->Close(std::move(status));
    }
  }
  // Called by the stream as it is destroyed.
  void Detach() {
    absl::MutexLock lock(&mu_);
    sink_ = nullptr;
  }

 private:
  absl::Mutex mu_;
  AgentStreamSink* sink_ ABSL_GUARDED_BY(mu_);
};

}  // namespace canopy::server
