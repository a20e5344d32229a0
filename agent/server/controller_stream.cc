#include "agent/server/controller_stream.h"

#include <utility>

#include "common/rpc/reaction_order.h"

namespace canopy::agent {

ControllerStream::ControllerStream(std::unique_ptr<grpc::ClientContext> context,
                                   MessageHandler on_message, DoneHandler on_done)
    : context_(std::move(context)),
      on_message_(std::move(on_message)),
      on_done_(std::move(on_done)) {}

std::shared_ptr<ControllerStream> ControllerStream::Create(
    std::unique_ptr<grpc::ClientContext> context, canopy::v1::AgentMessage first,
    MessageHandler on_message, DoneHandler on_done) {
  std::shared_ptr<ControllerStream> stream(
      new ControllerStream(std::move(context), std::move(on_message), std::move(on_done)));
  absl::MutexLock lock(&stream->mu_);
  // Writing from the start: a Write() before Start() queues behind `first`.
  stream->outbox_.push_back(std::move(first));
  stream->writing_ = true;
  return stream;
}

void ControllerStream::Start(canopy::v1::AgentService::Stub* stub) {
  self_ = shared_from_this();
  stub->async()->Connect(context_.get(), this);
  const canopy::v1::AgentMessage* hello;
  {
    absl::MutexLock lock(&mu_);
    hello = &outbox_.front();
  }
  // Held until no Write() can start another write (EndWrites), so that the call cannot finish
  // between a Write() deciding to write and its StartWrite.
  AddHold();
  // Everything done before the call starts (the caller's handlers' state included) comes before
  // every reaction: gRPC orders that with atomics TSan cannot see (common/rpc/reaction_order.h).
  rpc::ReactionHandOver(&outbox_);
  StartWrite(hello);
  rpc::ReactionHandOver(&incoming_);
  StartRead(&incoming_);
  StartCall();
}

bool ControllerStream::Write(canopy::v1::AgentMessage message) {
  const canopy::v1::AgentMessage* start;
  {
    absl::MutexLock lock(&mu_);
    if (ended_) {
      return false;
    }
    outbox_.push_back(std::move(message));
    if (writing_) {
      return true;  // OnWriteDone sends it in turn
    }
    writing_ = true;
    start = &outbox_.front();
  }
  // Outside mu_: gRPC may run OnWriteDone on this thread before StartWrite returns.
  rpc::ReactionHandOver(&outbox_);
  StartWrite(start);
  return true;
}

void ControllerStream::OnWriteDone(bool ok) {
  rpc::ReactionTakeOver(&outbox_);
  const canopy::v1::AgentMessage* next = nullptr;
  bool release = false;
  {
    absl::MutexLock lock(&mu_);
    outbox_.pop_front();
    if (!ok) {
      ended_ = true;
    }
    if (ended_ || outbox_.empty()) {
      writing_ = false;
      if (ended_) {
        outbox_.clear();
        release = !hold_released_;
        hold_released_ = true;
      }
    } else {
      next = &outbox_.front();
    }
  }
  rpc::ReactionHandOver(&outbox_);  // to the next OnWriteDone, or OnDone
  if (next != nullptr) {
    StartWrite(next);
  } else if (release) {
    RemoveHold();
  }
}

void ControllerStream::OnReadDone(bool ok) {
  rpc::ReactionTakeOver(&incoming_);
  if (!ok) {
    bool release = false;
    {
      absl::MutexLock lock(&mu_);
      ended_ = true;
      // A write in flight releases the hold when it completes (it fails now).
      if (!writing_) {
        release = !hold_released_;
        hold_released_ = true;
      }
    }
    rpc::ReactionHandOver(&incoming_);  // to OnDone
    if (release) {
      RemoveHold();
    }
    return;
  }
  on_message_(incoming_);
  rpc::ReactionHandOver(&incoming_);
  StartRead(&incoming_);
}

void ControllerStream::OnDone(const grpc::Status& status) {
  rpc::ReactionTakeOver(&incoming_);
  rpc::ReactionTakeOver(&outbox_);
  on_done_(status);
  // Last: may destroy this stream, whose reactions have all run.
  std::shared_ptr<ControllerStream> last = std::move(self_);
}

}  // namespace canopy::agent
