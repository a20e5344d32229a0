// NodeSession: one node's connection to the controller. Keeps a single AgentService.Connect
// stream open (a ControllerStream, on gRPC's callback API): registers, sends heartbeats and GPU
// health changes, handles the controller's messages, and reconnects with exponential backoff
// (with jitter) whenever the stream ends.
//
// It also owns the node's JobRuntime: the controller's job and step messages are handed to it,
// and its JobStatus/StepStatus reports go up through the same serialised Write(). After every
// RegisterAck the session kills the jobs the controller does not know and sends again the
// statuses the controller has not acknowledged.
//
// Fencing: a node that has not known the controller to hear it for nearly the controller's node
// timeout kills its jobs (ControllerContact says when), since the controller is about to requeue
// them elsewhere and a gang must never run twice.
//
// The controller's messages are read on gRPC's completion threads, one at a time per session;
// those for the runtime are applied in order through a RuntimeInbox, whose own thread (started
// with the node's first launch) takes the launches, so that they never hold up the reads of the
// other nodes sharing the connection. Tick() (heartbeats, and reconnecting once
// the backoff has passed) is called from the agent's ticker thread. Write() queues and never
// blocks. Thread-safe.
#pragma once

#include <atomic>
#include <memory>
#include <random>
#include <string>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "agent/gpu/gpu_provider.h"
#include "agent/runtime/child_reaper.h"
#include "agent/runtime/job_runtime.h"
#include "agent/server/controller_contact.h"
#include "agent/server/controller_stream.h"
#include "agent/server/runtime_inbox.h"
#include "canopy/v1/agent.grpc.pb.h"
#include "common/config/security_config.h"
#include "grpcpp/channel.h"

namespace canopy::agent {

// What the node reports about itself at registration.
struct NodeFacts {
  std::string node_name;
  std::string hostname;
  int cpus = 0;
  int64_t real_memory_mib = 0;
};

struct BackoffOptions {
  absl::Duration initial = absl::Milliseconds(200);
  absl::Duration max = absl::Seconds(5);
};

class NodeSession {
 public:
  // `reaper` (shared by all sessions of the process) must outlive the session.
  // `security`: how to sign the registration (AuthType); the channel already carries TLS.
  NodeSession(NodeFacts facts, std::shared_ptr<grpc::Channel> channel,
              config::SecurityConfig security, std::unique_ptr<gpu::GpuProvider> gpus,
              BackoffOptions backoff, uint32_t seed, runtime::RuntimeOptions runtime_options,
              runtime::ChildReaper* reaper);
  ~NodeSession();

  // Start, Tick and Stop are called from one thread (the agent's main thread).
  // Connects (the stream's callbacks take over from here).
  void Start();
  // Ends the stream and waits for its last callback, then kills the node's jobs
  // (JobRuntime::Shutdown: the agent does not re-adopt jobs when it restarts, so none may
  // outlive it).
  void Stop();
  // Without a stream, connects again once the backoff has passed. If registered and the interval
  // has passed, sends a heartbeat and reports GPU health changes. `now` is MonotonicNow()
  // (controller_contact.h).
  void Tick(absl::Time now);
  // Fences the node's jobs if the controller has been out of reach too long. Called from its own
  // thread (agent_main), so that a GPU query or a stream write that hangs in Tick() cannot hold
  // a fence back.
  void CheckFence();

  bool registered() const { return registered_.load(); }
  const std::string& node_name() const { return facts_.node_name; }

  // The agent's metrics endpoint (agent_metrics.h) asks each heartbeat for the GPUs' figures
  // too. Call before Start().
  void set_collect_telemetry(bool collect) { collect_telemetry_ = collect; }
  // The GPUs as last discovered and their figures as of the last heartbeat. Thread-safe.
  struct GpuView {
    std::vector<gpu::GpuDevice> gpus;
    std::vector<gpu::GpuTelemetry> telemetry;
  };
  GpuView Gpus();

 private:
  // Starts one connection: registration, then the stream's callbacks.
  void Connect();
  // The stream `connection` ended: reconnect after the backoff.
  void OnStreamDone(uint64_t connection, const grpc::Status& status);
  // Sets when Tick() connects again (exponential backoff with jitter) and says why.
  void ScheduleReconnect(const grpc::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnMessage(const canopy::v1::ControllerMessage& in);
  // Hands a job or step message to the runtime, through inbox_; false for other kinds.
  bool DispatchToRuntime(const canopy::v1::ControllerMessage& message);
  // The runtime's handling of one such message (on the inbox's thread, or the reader's);
  // `fences_seen`: the runtime's Fences() when it arrived.
  void ApplyToRuntime(const canopy::v1::ControllerMessage& message, uint64_t fences_seen);
  void OnRegisterAck(const canopy::v1::RegisterAck& ack);
  bool Write(const canopy::v1::AgentMessage& message);
  absl::StatusOr<std::vector<gpu::GpuDevice>> Discover();

  const NodeFacts facts_;
  const std::shared_ptr<canopy::v1::AgentService::Stub> stub_;
  const config::SecurityConfig security_;
  const std::unique_ptr<gpu::GpuProvider> gpus_;
  const BackoffOptions backoff_;
  const absl::Time boot_time_;

  std::atomic<bool> stopping_{false};
  std::atomic<bool> registered_{false};

  absl::Mutex discover_mu_;  // serialises GpuProvider::Discover(); taken alone
  // Never held while calling into the runtime or a running stream (their callbacks take it);
  // ControllerStream::Create, which calls nothing back, runs under it.
  absl::Mutex mu_;
  std::mt19937 rng_ ABSL_GUARDED_BY(mu_);                          // backoff jitter
  std::shared_ptr<ControllerStream> stream_ ABSL_GUARDED_BY(mu_);  // null between connections
  uint64_t connection_ ABSL_GUARDED_BY(mu_) = 0;                   // connections started
  absl::Time connected_at_ ABSL_GUARDED_BY(mu_);                   // MonotonicNow()
  absl::Time register_sent_ ABSL_GUARDED_BY(mu_);
  absl::Duration reconnect_delay_ ABSL_GUARDED_BY(mu_);
  absl::Time reconnect_at_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();  // after a stream ended
  absl::Duration heartbeat_interval_ ABSL_GUARDED_BY(mu_) = absl::Seconds(10);
  absl::Time last_heartbeat_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  uint64_t heartbeat_sequence_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<gpu::GpuDevice> reported_gpus_ ABSL_GUARDED_BY(mu_);
  bool collect_telemetry_ = false;
  std::vector<gpu::GpuTelemetry> telemetry_ ABSL_GUARDED_BY(mu_);
  ControllerContact contact_ ABSL_GUARDED_BY(mu_);

  // Destroyed before the members above, while the Write() path its reports use still exists.
  std::unique_ptr<runtime::JobRuntime> runtime_;
  // Last: destroyed (its thread ended) first, while the runtime its tasks call still exists.
  RuntimeInbox inbox_;
};

}  // namespace canopy::agent
