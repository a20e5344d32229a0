#include "agent/runtime/step_io_stream.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/auth/step_io_tls.h"
#include "grpcpp/create_channel.h"
#include "spdlog/spdlog.h"

namespace canopy::agent::runtime {

StepIoStream::StepIoStream(SignalCallback on_signal, BrokenCallback on_broken)
    : on_signal_(std::move(on_signal)), on_broken_(std::move(on_broken)) {}

absl::StatusOr<std::unique_ptr<StepIoStream>> StepIoStream::Open(
    const std::string& address, const canopy::v1::StepIoHello& hello, SignalCallback on_signal,
    BrokenCallback on_broken, absl::Duration connect_timeout) {
  std::unique_ptr<StepIoStream> s(new StepIoStream(std::move(on_signal), std::move(on_broken)));
  // TLS pinned to the certificate srun put in the token, when it did (step_io_tls.h).
  grpc::ChannelArguments args;
  std::shared_ptr<grpc::ChannelCredentials> credentials =
      auth::StepIoChannelCredentials(hello.io_token(), args);
  std::shared_ptr<grpc::Channel> channel = grpc::CreateCustomChannel(address, credentials, args);
  spdlog::debug("step I/O to {}: {}", address,
                hello.io_token().find("-----BEGIN CERTIFICATE-----") != std::string::npos
                    ? "TLS, pinned to the certificate srun sent"
                    : "plain (the cluster runs without TLS)");
  if (connect_timeout != absl::InfiniteDuration()) {
    // Up to `connect_timeout` for srun's end to answer; a refused connection (srun gone) fails
    // at once rather than being retried until then.
    const absl::Time deadline = absl::Now() + connect_timeout;
    grpc_connectivity_state state = channel->GetState(/*try_to_connect=*/true);
    while (state != GRPC_CHANNEL_READY) {
      if (state == GRPC_CHANNEL_TRANSIENT_FAILURE || state == GRPC_CHANNEL_SHUTDOWN) {
        return absl::UnavailableError(absl::StrCat("cannot connect to ", address));
      }
      if (!channel->WaitForStateChange(state, absl::ToChronoTime(deadline))) {
        return absl::UnavailableError(absl::StrCat("cannot connect to ", address, " within ",
                                                   absl::FormatDuration(connect_timeout)));
      }
      state = channel->GetState(/*try_to_connect=*/true);
    }
  }
  s->stub_ = canopy::v1::StepIo::NewStub(channel);
  // srun is waiting for us: if it cannot be reached soon it is gone, and the step with it.
  s->context_.set_wait_for_ready(false);
  s->stream_ = s->stub_->Attach(&s->context_);
  canopy::v1::StepIoMessage first;
  *first.mutable_hello() = hello;
  if (s->stream_ == nullptr || !s->stream_->Write(first)) {
    if (s->stream_ != nullptr) {
      s->context_.TryCancel();
      s->stream_->Finish();
      // Finished: the destructor must not finish it again (gRPC aborts the process on that).
      s->stream_.reset();
    }
    return absl::UnavailableError(absl::StrCat("cannot attach to srun at ", address));
  }
  s->reader_ = std::thread([raw = s.get()] { raw->ReadLoop(); });
  return s;
}

StepIoStream::~StepIoStream() {
  context_.TryCancel();
  if (reader_.joinable()) {
    reader_.join();
  }
  if (stream_ != nullptr) {
    stream_->Finish();
  }
}

void StepIoStream::ReadLoop() {
  canopy::v1::StepIoControl control;
  while (stream_->Read(&control)) {
    if (control.signal() > 0) {
      on_signal_(control.signal());
    }
  }
  if (!closing_.load()) {
    broken_.store(true);
    on_broken_();
  }
  absl::MutexLock lock(&mu_);
  reader_done_ = true;
}

bool StepIoStream::Send(const canopy::v1::StepIoMessage& message) {
  if (broken_.load()) {
    return false;
  }
  absl::MutexLock lock(&write_mu_);
  if (!stream_->Write(message)) {
    // The reader sees the same failure and reports it through on_broken.
    broken_.store(true);
    return false;
  }
  return true;
}

void StepIoStream::Close(absl::Duration grace) {
  closing_.store(true);
  {
    absl::MutexLock lock(&write_mu_);
    if (!broken_.load()) {
      stream_->WritesDone();
    }
  }
  absl::MutexLock lock(&mu_);
  auto done = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return reader_done_; };
  if (!mu_.AwaitWithTimeout(absl::Condition(&done), grace)) {
    context_.TryCancel();
  }
}

}  // namespace canopy::agent::runtime
