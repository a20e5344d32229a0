// StepIoServer: srun's end of step_io.proto. Agents attach (one stream per node) with the
// step's token; their tasks' output and exits become StepIoEvents that srun's main thread takes
// with Next(). Wrong tokens are refused with PERMISSION_DENIED. Thread-safe: gRPC threads feed
// the queue, one consumer reads it, SignalAll may be called from any thread.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "canopy/v1/step_io.grpc.pb.h"
#include "common/auth/step_io_tls.h"
#include "grpcpp/server.h"

namespace canopy::ctl::srun {

struct StepIoEvent {
  enum class Kind { kAttached, kOutput, kExited, kLaunchFailed, kDetached, kNotice };
  Kind kind = Kind::kOutput;
  std::string node;
  std::vector<int> ranks;  // kAttached: the node's ranks
  int rank = 0;
  int stream = 0;  // 0 stdout, 1 stderr
  std::string data;
  int exit_code = 0;
  int exit_signal = 0;
  std::string message;  // kLaunchFailed, kNotice
};

// A random token for a StepIoServer (128 bits, hex), so agents can be told from strangers.
std::string NewStepIoToken();

// A fresh token and, with `tls` (the cluster runs TLS and canopyd is on another host), a
// throwaway certificate inside it and the server credentials that go with it
// (common/auth/step_io_tls.h); without, plain credentials (null).
absl::StatusOr<auth::StepIoServerTls> PrepareStepIo(bool tls);

class StepIoServer final : public canopy::v1::StepIo::Service {
 public:
  explicit StepIoServer(std::string token) : token_(std::move(token)) {}
  ~StepIoServer() override;

  // Listens on `bind_host` with a port the system picks; returns the port.
  // `credentials`: TLS ones (common/auth/step_io_tls.h) when the cluster runs TLS; null: plain.
  absl::StatusOr<int> Start(const std::string& bind_host,
                            std::shared_ptr<grpc::ServerCredentials> credentials = nullptr);
  void Shutdown();

  // The next event, or nullopt after `timeout`.
  std::optional<StepIoEvent> Next(absl::Duration timeout);
  // Sends `signal` to every attached node.
  void SignalAll(int signal);

  grpc::Status Attach(grpc::ServerContext* context,
                      grpc::ServerReaderWriter<canopy::v1::StepIoControl,
                                               canopy::v1::StepIoMessage>* stream) override;

 private:
  void Push(StepIoEvent event);

  const std::string token_;
  std::unique_ptr<grpc::Server> server_;
  absl::Mutex mu_;
  std::deque<StepIoEvent> events_ ABSL_GUARDED_BY(mu_);
  std::map<int, grpc::ServerReaderWriter<canopy::v1::StepIoControl, canopy::v1::StepIoMessage>*>
      streams_ ABSL_GUARDED_BY(mu_);
  int next_stream_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace canopy::ctl::srun
