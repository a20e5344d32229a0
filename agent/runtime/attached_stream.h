// AttachedStream: one sattach's copy of a step part's output (step_io.proto, as srun gets it).
// The user chooses where it goes, so nothing on the agent's side may wait for it: its own
// thread connects (giving up after a few seconds) and sends what Push() queued, and Push()
// never blocks. A stream that cannot connect, breaks, or falls more than kMaxQueuedBytes behind
// is dropped: Push() returns false from then on and the owner destroys it. Signals sent back
// by the peer are ignored (only srun controls the step). Thread-safe.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "agent/runtime/step_io_stream.h"
#include "canopy/v1/step_io.pb.h"

namespace canopy::agent::runtime {

class AttachedStream {
 public:
  static constexpr size_t kMaxQueuedBytes = 4 << 20;
  static constexpr absl::Duration kConnectTimeout = absl::Seconds(5);

  // Starts connecting to `address` with `hello` at once, on the stream's own thread.
  AttachedStream(std::string address, canopy::v1::StepIoHello hello);
  // Sends what is still queued (for up to `kDrainGrace`), then ends the call; cancels it if the
  // peer does not keep up. Joins the thread.
  ~AttachedStream();
  AttachedStream(const AttachedStream&) = delete;
  AttachedStream& operator=(const AttachedStream&) = delete;

  // Queues `message`; false once the stream is dropped (the message is not queued).
  bool Push(canopy::v1::StepIoMessage message);
  // The stream could not connect, broke, or fell behind: nothing more will be sent.
  bool dropped();

 private:
  static constexpr absl::Duration kDrainGrace = absl::Seconds(1);
  void Run();

  const std::string address_;
  const canopy::v1::StepIoHello hello_;
  absl::Mutex mu_;
  std::deque<canopy::v1::StepIoMessage> queue_ ABSL_GUARDED_BY(mu_);
  size_t queued_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  bool dropped_ ABSL_GUARDED_BY(mu_) = false;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  StepIoStream* stream_ ABSL_GUARDED_BY(mu_) = nullptr;  // owned by Run(); for cancelling
  std::thread thread_;
};

}  // namespace canopy::agent::runtime
