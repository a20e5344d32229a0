#include "agent/runtime/attached_stream.h"

#include <algorithm>
#include <utility>

#include "common/log/absl_format.h"
#include "spdlog/spdlog.h"

namespace canopy::agent::runtime {

AttachedStream::AttachedStream(std::string address, canopy::v1::StepIoHello hello)
    : address_(std::move(address)), hello_(std::move(hello)) {
  thread_ = std::thread([this] { Run(); });
}

AttachedStream::~AttachedStream() {
  {
    absl::MutexLock lock(&mu_);
    closing_ = true;
    auto done = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return done_; };
    if (!mu_.AwaitWithTimeout(absl::Condition(&done), kDrainGrace) && stream_ != nullptr) {
      // The peer stopped reading: end the call, which unblocks the write.
      stream_->Cancel();
    }
  }
  thread_.join();  // at most kConnectTimeout more while a connect is still in progress
}

bool AttachedStream::dropped() {
  absl::MutexLock lock(&mu_);
  return dropped_;
}

bool AttachedStream::Push(canopy::v1::StepIoMessage message) {
  absl::MutexLock lock(&mu_);
  if (dropped_) {
    return false;
  }
  const size_t bytes = message.ByteSizeLong();
  if (queued_bytes_ + bytes > kMaxQueuedBytes) {
    spdlog::warn("sattach at {} fell more than {} bytes behind; dropped", address_,
                 kMaxQueuedBytes);
    dropped_ = true;
    if (stream_ != nullptr) {
      stream_->Cancel();
    }
    return false;
  }
  queued_bytes_ += bytes;
  queue_.push_back(std::move(message));
  return true;
}

void AttachedStream::Run() {
  absl::StatusOr<std::unique_ptr<StepIoStream>> opened = StepIoStream::Open(
      address_, hello_, [](int) {}, [] {}, kConnectTimeout);
  std::unique_ptr<StepIoStream> stream;
  {
    absl::MutexLock lock(&mu_);
    if (!opened.ok()) {
      spdlog::info("sattach at {}: {}", address_, opened.status().message());
      dropped_ = true;
      done_ = true;
      return;
    }
    stream = *std::move(opened);
    stream_ = stream.get();
  }
  while (true) {
    canopy::v1::StepIoMessage next;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return !queue_.empty() || closing_ || dropped_;
      };
      mu_.Await(absl::Condition(&ready));
      if (dropped_ || queue_.empty()) {
        break;  // dropped, or closing with nothing left to send
      }
      next = std::move(queue_.front());
      queue_.pop_front();
      queued_bytes_ -= std::min(queued_bytes_, next.ByteSizeLong());
    }
    if (!stream->Send(next)) {
      absl::MutexLock lock(&mu_);
      dropped_ = true;
      break;
    }
  }
  stream->Close(kDrainGrace);
  absl::MutexLock lock(&mu_);
  stream_ = nullptr;
  dropped_ = true;
  done_ = true;
  // `stream` is destroyed after the lock is released, outside mu_.
}

}  // namespace canopy::agent::runtime
