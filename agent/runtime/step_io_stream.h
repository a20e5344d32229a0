// StepIoStream: the agent's end of one StepIo.Attach call to srun (step_io.proto) for this
// node's part of a step. Opening it sends the StepIoHello; then Send() carries output and exits
// up, and a reader thread hands srun's signals (StepIoControl) to a callback. When the call
// breaks before Close() (srun died, or refused the token), `on_broken` runs once: the owner
// kills the tasks, since a step never outlives its srun.
//
// Send() is thread-safe (one writer at a time); callbacks run on the reader thread. The owner
// must stop calling Send() before destroying the stream.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "canopy/v1/step_io.grpc.pb.h"

namespace canopy::agent::runtime {

class StepIoStream {
 public:
  using SignalCallback = absl::AnyInvocable<void(int signal)>;
  using BrokenCallback = absl::AnyInvocable<void()>;

  // How long Open waits for srun's end to answer by default: Slurm's MessageTimeout default.
  // srun waits for its nodes, but a wide step's thousands of nodes all shake hands with one srun
  // (TLS), so it may be slow to answer; the callers (a step's own I/O thread, the runtime's
  // timer thread telling srun a step cannot start) must still not be held for gRPC's 20 s by one
  // that never will (a stopped srun, a firewall that drops). A refused connection fails at once.
  static constexpr absl::Duration kConnectTimeout = absl::Seconds(10);

  // Connects to `address` (srun's StepIo server; TLS pinned to the certificate in the hello's
  // token when there is one, common/auth/step_io_tls.h) and sends `hello`. Unavailable
  // when the call cannot be started, the connection is not up within `connect_timeout`, or the
  // hello cannot be sent.
  static absl::StatusOr<std::unique_ptr<StepIoStream>> Open(
      const std::string& address, const canopy::v1::StepIoHello& hello, SignalCallback on_signal,
      BrokenCallback on_broken, absl::Duration connect_timeout = kConnectTimeout);
  // Cancels the call if it is still open and joins the reader thread.
  ~StepIoStream();
  StepIoStream(const StepIoStream&) = delete;
  StepIoStream& operator=(const StepIoStream&) = delete;

  // False once the call is broken (the message is dropped).
  bool Send(const canopy::v1::StepIoMessage& message);
  // The node's part is over: half-closes the call and gives srun up to `grace` to end it.
  void Close(absl::Duration grace);
  // Ends the call now (a blocked Send returns false). Any thread, any time.
  void Cancel() { context_.TryCancel(); }

 private:
  StepIoStream(SignalCallback on_signal, BrokenCallback on_broken);
  void ReadLoop();

  SignalCallback on_signal_;
  BrokenCallback on_broken_;
  std::unique_ptr<canopy::v1::StepIo::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<canopy::v1::StepIoMessage, canopy::v1::StepIoControl>>
      stream_;
  std::atomic<bool> closing_{false};
  std::atomic<bool> broken_{false};
  absl::Mutex write_mu_;  // one Write at a time, as gRPC requires
  absl::Mutex mu_;
  bool reader_done_ ABSL_GUARDED_BY(mu_) = false;
  std::thread reader_;
};

}  // namespace canopy::agent::runtime
