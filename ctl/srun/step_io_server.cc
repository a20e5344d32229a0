#include "ctl/srun/step_io_server.h"

#include <chrono>
#include <random>

#include "absl/strings/str_cat.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"

namespace canopy::ctl::srun {

std::string NewStepIoToken() {
  std::random_device rd;
  std::string token;
  for (int i = 0; i < 4; ++i) {
    absl::StrAppend(&token, absl::Hex(rd(), absl::kZeroPad8));
  }
  return token;
}

StepIoServer::~StepIoServer() { Shutdown(); }

absl::StatusOr<auth::StepIoServerTls> PrepareStepIo(bool tls) {
  if (!tls) {
    return auth::StepIoServerTls{NewStepIoToken(), nullptr};
  }
  return auth::MakeStepIoServerTls(NewStepIoToken());
}

absl::StatusOr<int> StepIoServer::Start(const std::string& bind_host,
                                        std::shared_ptr<grpc::ServerCredentials> credentials) {
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(absl::StrCat(bind_host, ":0"),
                           credentials != nullptr ? credentials : grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterService(this);
  server_ = builder.BuildAndStart();
  if (server_ == nullptr || port == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen for step I/O on ", bind_host));
  }
  return port;
}

void StepIoServer::Shutdown() {
  if (server_ != nullptr) {
    // Streams still open (agents of a cancelled step) are cut after a short grace period.
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(500));
    server_.reset();
  }
}

void StepIoServer::Push(StepIoEvent event) {
  absl::MutexLock lock(&mu_);
  events_.push_back(std::move(event));
}

std::optional<StepIoEvent> StepIoServer::Next(absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !events_.empty(); };
  if (!mu_.AwaitWithTimeout(absl::Condition(&ready), timeout)) {
    return std::nullopt;
  }
  StepIoEvent e = std::move(events_.front());
  events_.pop_front();
  return e;
}

void StepIoServer::SignalAll(int signal) {
  absl::MutexLock lock(&mu_);
  canopy::v1::StepIoControl control;
  control.set_signal(signal);
  for (auto& [id, stream] : streams_) {
    stream->Write(control);
  }
}

grpc::Status StepIoServer::Attach(
    grpc::ServerContext* /*context*/,
    grpc::ServerReaderWriter<canopy::v1::StepIoControl, canopy::v1::StepIoMessage>* stream) {
  canopy::v1::StepIoMessage message;
  if (!stream->Read(&message) || !message.has_hello()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "the first message must be a hello");
  }
  const canopy::v1::StepIoHello hello = message.hello();
  if (hello.io_token() != token_) {
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED, "wrong step I/O token");
  }
  int id = 0;
  {
    absl::MutexLock lock(&mu_);
    id = next_stream_++;
    streams_[id] = stream;
    StepIoEvent attached;
    attached.kind = StepIoEvent::Kind::kAttached;
    attached.node = hello.node_name();
    attached.ranks.assign(hello.task_ranks().begin(), hello.task_ranks().end());
    events_.push_back(std::move(attached));
  }
  while (stream->Read(&message)) {
    StepIoEvent e;
    e.node = hello.node_name();
    if (message.has_output()) {
      e.kind = StepIoEvent::Kind::kOutput;
      e.rank = message.output().rank();
      e.stream = message.output().stream() == canopy::v1::TaskOutput::STREAM_STDERR ? 1 : 0;
      e.data = message.output().data();
    } else if (message.has_exited()) {
      e.kind = StepIoEvent::Kind::kExited;
      e.rank = message.exited().rank();
      e.exit_code = message.exited().exit_code();
      e.exit_signal = message.exited().exit_signal();
    } else if (message.has_launch_failed()) {
      e.kind = StepIoEvent::Kind::kLaunchFailed;
      e.message = message.launch_failed().message();
      e.ranks.assign(hello.task_ranks().begin(), hello.task_ranks().end());
    } else if (message.has_notice()) {
      e.kind = StepIoEvent::Kind::kNotice;
      e.message = message.notice().message();
    } else {
      continue;
    }
    Push(std::move(e));
  }
  absl::MutexLock lock(&mu_);
  streams_.erase(id);
  StepIoEvent detached;
  detached.kind = StepIoEvent::Kind::kDetached;
  detached.node = hello.node_name();
  events_.push_back(std::move(detached));
  return grpc::Status::OK;
}

}  // namespace canopy::ctl::srun
