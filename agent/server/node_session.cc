#include "agent/server/node_session.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/auth/call_signing.h"
#include "common/log/absl_format.h"
#include "common/rpc/status_convert.h"
#include "spdlog/spdlog.h"

namespace canopy::agent {
namespace {

// An unacknowledged job status is sent again after two heartbeat intervals, and never sooner than
// this: acknowledgements wait for the controller's commit, which a busy database may delay.
constexpr absl::Duration kResendAfterAtLeast = absl::Seconds(5);

void FillGpus(const std::vector<gpu::GpuDevice>& gpus,
              google::protobuf::RepeatedPtrField<canopy::v1::Gpu>* out) {
  for (const gpu::GpuDevice& d : gpus) {
    canopy::v1::Gpu* g = out->Add();
    g->set_index(d.index);
    g->set_uuid(d.uuid);
    g->set_model(d.model);
    g->set_vendor(d.vendor);
    g->set_memory_mib(d.memory_mib);
    g->set_health(d.healthy ? canopy::v1::GPU_HEALTH_HEALTHY : canopy::v1::GPU_HEALTH_UNHEALTHY);
    g->set_health_reason(d.health_reason);
  }
}

// The GPUs' device numbers, for the device filter of jobs' cgroups. A GPU whose file is
// unknown or not a device is left out (and so never refused to a job), with a warning.
std::vector<runtime::GpuDeviceFile> DeviceFiles(const std::string& node,
                                                const std::vector<gpu::GpuDevice>& gpus) {
  std::vector<runtime::GpuDeviceFile> files;
  for (const gpu::GpuDevice& g : gpus) {
    if (g.device_file.empty()) {
      continue;
    }
    absl::StatusOr<runtime::DeviceNumber> device = runtime::CharDeviceOf(g.device_file);
    if (!device.ok()) {
      spdlog::warn("{}: GPU {}: {}; jobs are not kept from it", node, g.index,
                   device.status().message());
      continue;
    }
    files.push_back({g.index, *device});
  }
  return files;
}

}  // namespace

NodeSession::NodeSession(NodeFacts facts, std::shared_ptr<grpc::Channel> channel,
                         config::SecurityConfig security, std::unique_ptr<gpu::GpuProvider> gpus,
                         BackoffOptions backoff, uint32_t seed,
                         runtime::RuntimeOptions runtime_options, runtime::ChildReaper* reaper)
    : facts_(std::move(facts)),
      stub_(canopy::v1::AgentService::NewStub(channel)),
      security_(std::move(security)),
      gpus_(std::move(gpus)),
      backoff_(backoff),
      boot_time_(absl::Now()),
      rng_(seed),
      reconnect_delay_(backoff.initial),
      runtime_(std::make_unique<runtime::JobRuntime>(
          std::move(runtime_options), reaper, [this](const canopy::v1::AgentMessage& report) {
            // Without a stream the report is dropped here; EXITED/CLEANED_UP are kept by the
            // runtime and sent again after the next registration.
            Write(report);
          })) {
  inbox_.SetThreadName(absl::StrCat("inbox ", facts_.node_name));
}

NodeSession::~NodeSession() { Stop(); }

void NodeSession::Start() { Connect(); }

void NodeSession::Stop() {
  std::shared_ptr<ControllerStream> stream;
  {
    absl::MutexLock lock(&mu_);
    stopping_.store(true);
    stream = stream_;
  }
  if (stream != nullptr) {
    stream->Cancel();
  }
  {
    // The stream's last callback (OnStreamDone) clears stream_; after it no callback of this
    // session runs.
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(
        +[](std::shared_ptr<ControllerStream>* s) { return *s == nullptr; }, &stream_));
  }
  // Only now: the runtime's messages (launches among them) must not race with Shutdown. The
  // inbox finishes the one it is applying and drops the rest: the agent is going away, and the
  // controller requeues what it launched here and never heard of.
  inbox_.Stop();
  runtime_->Shutdown();
}

void NodeSession::Connect() {
  canopy::v1::AgentMessage hello;
  canopy::v1::Register* reg = hello.mutable_register_();
  reg->set_node_name(facts_.node_name);
  reg->set_hostname(facts_.hostname);
  reg->set_cpus(facts_.cpus);
  reg->set_real_memory_mib(facts_.real_memory_mib);
  reg->set_agent_version(CANOPY_VERSION);
  *reg->mutable_boot_time() = rpc::ToProtoTime(boot_time_);
  reg->set_runs_as_root(geteuid() == 0);
  for (canopy::v1::RunningJob& job : runtime_->RunningJobs()) {
    reg->add_running_job_ids(job.job_id());
    *reg->add_running_jobs() = std::move(job);
  }
  absl::StatusOr<std::vector<gpu::GpuDevice>> gpus = Discover();
  if (!gpus.ok()) {
    spdlog::error("{}: GPU discovery with {} failed: {}", facts_.node_name, gpus_->name(),
                  gpus.status().message());
  } else {
    FillGpus(*gpus, reg->mutable_gpus());
    runtime_->SetGpuDevices(DeviceFiles(facts_.node_name, *gpus));
    absl::MutexLock lock(&mu_);
    reported_gpus_ = *gpus;
  }
  auto context = std::make_unique<grpc::ClientContext>();
  // The Register message is what the stream's credential vouches for (AuthType=auth/munge):
  // canopyd checks it against the first message it reads.
  if (absl::Status s = auth::SignCall(security_, hello, *context); !s.ok()) {
    spdlog::error("{}: cannot sign the registration: {}", facts_.node_name, s.message());
    absl::MutexLock lock(&mu_);
    ScheduleReconnect(grpc::Status(grpc::StatusCode::UNAUTHENTICATED, std::string(s.message())));
    return;
  }
  uint64_t connection;
  std::shared_ptr<ControllerStream> stream;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_.load()) {
      return;
    }
    connection = ++connection_;
    connected_at_ = MonotonicNow();
    register_sent_ = connected_at_;
    reconnect_at_ = absl::InfiniteFuture();
    // Published before the call starts: the RegisterAck can be handled on a gRPC thread before
    // Start() returns, and what it sends again (statuses the controller has not acknowledged)
    // must find the stream. OnStreamDone clears it.
    stream = ControllerStream::Create(
        std::move(context), std::move(hello),
        [this](const canopy::v1::ControllerMessage& in) { OnMessage(in); },
        [this, connection](const grpc::Status& status) { OnStreamDone(connection, status); });
    stream_ = stream;
  }
  stream->Start(stub_.get());
}

void NodeSession::OnStreamDone(uint64_t connection, const grpc::Status& status) {
  absl::MutexLock lock(&mu_);
  if (connection != connection_) {
    return;
  }
  stream_ = nullptr;
  registered_.store(false);
  // A stream that lived a while was a good connection: start the backoff over.
  if (MonotonicNow() - connected_at_ > backoff_.max) {
    reconnect_delay_ = backoff_.initial;
  }
  ScheduleReconnect(status);
}

void NodeSession::ScheduleReconnect(const grpc::Status& status) {
  if (stopping_.load()) {
    return;
  }
  const absl::Time now = MonotonicNow();
  std::uniform_real_distribution<double> jitter(0.5, 1.5);
  const absl::Duration wait = reconnect_delay_ * jitter(rng_);
  reconnect_at_ = now + wait;
  reconnect_delay_ = std::min(reconnect_delay_ * 2, backoff_.max);
  spdlog::warn("{}: controller stream ended ({}: {}); reconnecting in {}", facts_.node_name,
               static_cast<int>(status.error_code()), status.error_message(),
               absl::FormatDuration(absl::Trunc(wait, absl::Milliseconds(1))));
}

void NodeSession::OnMessage(const canopy::v1::ControllerMessage& in) {
  switch (in.payload_case()) {
    case canopy::v1::ControllerMessage::kRegisterAck: {
      OnRegisterAck(in.register_ack());
      absl::MutexLock lock(&mu_);
      const absl::Duration interval =
          rpc::FromProtoDuration(in.register_ack().heartbeat_interval());
      if (interval > absl::ZeroDuration()) {
        heartbeat_interval_ = interval;
      }
      last_heartbeat_ = MonotonicNow();
      contact_.Registered(register_sent_, rpc::FromProtoDuration(in.register_ack().node_timeout()),
                          heartbeat_interval_);
      registered_.store(true);
      spdlog::info("{}: registered with cluster {} (heartbeat every {})", facts_.node_name,
                   in.register_ack().cluster_name(), absl::FormatDuration(heartbeat_interval_));
      break;
    }
    case canopy::v1::ControllerMessage::kHeartbeatAck: {
      absl::MutexLock lock(&mu_);
      contact_.HeartbeatAcknowledged(in.heartbeat_ack().sequence());
      break;
    }
    case canopy::v1::ControllerMessage::kDrainNode:
      spdlog::warn("{}: controller drained this node: {}", facts_.node_name,
                   in.drain_node().reason());
      break;
    default:
      if (DispatchToRuntime(in)) {
        break;
      }
      spdlog::warn("{}: ignoring controller message of kind {}", facts_.node_name,
                   static_cast<int>(in.payload_case()));
      break;
  }
}

void NodeSession::OnRegisterAck(const canopy::v1::RegisterAck& ack) {
  // In order with the runtime's other messages, like them.
  inbox_.Post(
      [this,
       kill_job_ids = std::vector<uint32_t>(ack.kill_job_ids().begin(), ack.kill_job_ids().end())] {
        for (uint32_t id : kill_job_ids) {
          spdlog::warn("{}: controller does not know job {}: killing it", facts_.node_name, id);
          canopy::v1::KillJob kill;
          kill.set_job_id(id);
          kill.set_reason("unknown to the controller");
          runtime_->KillJob(kill);
        }
        // Exits and clean-ups the controller may have missed while we were apart.
        // All of them, counted as sent now (the timer resends those still unanswered later).
        for (canopy::v1::JobStatus& status : runtime_->StatusesToResend(absl::ZeroDuration())) {
          canopy::v1::AgentMessage msg;
          *msg.mutable_job_status() = std::move(status);
          Write(msg);
        }
      },
      /*may_block=*/false);
}

bool NodeSession::DispatchToRuntime(const canopy::v1::ControllerMessage& message) {
  using Kind = canopy::v1::ControllerMessage::PayloadCase;
  const Kind kind = message.payload_case();
  switch (kind) {
    case Kind::kLaunchJob:
    case Kind::kSignalJob:
    case Kind::kKillJob:
    case Kind::kLaunchStep:
    case Kind::kKillStep:
    case Kind::kJobStatusAck:
    case Kind::kNotifyJob:
    case Kind::kAttachStep:
      break;
    default:
      return false;
  }
  // A job's launch makes its cgroup and spool file (and may load the user's login environment),
  // and a job's launch or a step's may start the node's prolog: they go to the inbox's thread.
  // The rest signal, schedule, queue or bookkeep, and run here when nothing is waiting before
  // them. None waits for a child that enters the user's files (JobRuntime).
  const bool may_block = kind == Kind::kLaunchJob || kind == Kind::kLaunchStep;
  // Whether the node fenced its jobs between now and when the inbox applies it (JobRuntime
  // drops a launch that waited across a fence).
  const uint64_t fences = runtime_->Fences();
  inbox_.Post([this, message, fences] { ApplyToRuntime(message, fences); }, may_block);
  return true;
}

void NodeSession::ApplyToRuntime(const canopy::v1::ControllerMessage& message,
                                 uint64_t fences_seen) {
  switch (message.payload_case()) {
    case canopy::v1::ControllerMessage::kLaunchJob:
      runtime_->LaunchJob(message.launch_job(), fences_seen);
      return;
    case canopy::v1::ControllerMessage::kSignalJob:
      runtime_->SignalJob(message.signal_job());
      return;
    case canopy::v1::ControllerMessage::kKillJob:
      runtime_->KillJob(message.kill_job());
      return;
    case canopy::v1::ControllerMessage::kLaunchStep:
      runtime_->LaunchStep(message.launch_step());
      return;
    case canopy::v1::ControllerMessage::kKillStep:
      runtime_->KillStep(message.kill_step());
      return;
    case canopy::v1::ControllerMessage::kJobStatusAck:
      runtime_->AckStatus(message.job_status_ack());
      return;
    case canopy::v1::ControllerMessage::kNotifyJob:
      runtime_->NotifyJob(message.notify_job());
      return;
    case canopy::v1::ControllerMessage::kAttachStep:
      runtime_->AttachStep(message.attach_step());
      return;
    default:
      return;  // DispatchToRuntime posts only the kinds above
  }
}

absl::StatusOr<std::vector<gpu::GpuDevice>> NodeSession::Discover() {
  // The reader (at connect) and the ticker (at heartbeats) both ask; providers are called by one
  // thread at a time.
  absl::MutexLock lock(&discover_mu_);
  return gpus_->Discover();
}

NodeSession::GpuView NodeSession::Gpus() {
  absl::MutexLock lock(&mu_);
  return GpuView{reported_gpus_, telemetry_};
}

bool NodeSession::Write(const canopy::v1::AgentMessage& message) {
  std::shared_ptr<ControllerStream> stream;
  {
    absl::MutexLock lock(&mu_);
    stream = stream_;
  }
  return stream != nullptr && stream->Write(message);
}

void NodeSession::CheckFence() {
  const absl::Time now = MonotonicNow();
  absl::Time last_contact;
  absl::Duration fence_after;
  {
    absl::MutexLock lock(&mu_);
    if (!contact_.ShouldFence(now)) {
      return;
    }
    last_contact = contact_.last_contact();
    fence_after = contact_.FenceAfter();
  }
  const std::string why = absl::StrCat(
      "the controller has not acknowledged this node for ",
      absl::FormatDuration(absl::Trunc(now - last_contact, absl::Milliseconds(1))),
      "; it declares a node down after its node timeout and requeues the node's jobs, so they are "
      "killed here (fenced after ",
      absl::FormatDuration(fence_after), ")");
  if (const int fenced = runtime_->Fence(why); fenced > 0) {
    spdlog::error("{}: fenced {} job(s): {}", facts_.node_name, fenced, why);
  }
}

void NodeSession::Tick(absl::Time now) {
  if (!registered_.load()) {
    bool reconnect;
    {
      absl::MutexLock lock(&mu_);
      reconnect = !stopping_.load() && stream_ == nullptr && now >= reconnect_at_;
    }
    // Not while messages the last connection delivered still wait: the registration must list
    // the jobs they launch. Looked at, not waited for: this thread ticks every node.
    if (reconnect && inbox_.Idle()) {
      Connect();
    }
    return;
  }
  canopy::v1::AgentMessage health;
  absl::Duration heartbeat_interval;
  {
    absl::MutexLock lock(&mu_);
    if (now - last_heartbeat_ < heartbeat_interval_) {
      return;
    }
    last_heartbeat_ = now;
    heartbeat_interval = heartbeat_interval_;
  }
  // A job's end the controller has not acknowledged for a while was lost on the way (acks come
  // within a commit): sent again, so the job does not stay RUNNING until the next registration.
  for (canopy::v1::JobStatus& status :
       runtime_->StatusesToResend(std::max(2 * heartbeat_interval, kResendAfterAtLeast))) {
    spdlog::warn(
        "{}: the controller has not acknowledged job {} (run {}) phase {}; sending it "
        "again",
        facts_.node_name, status.job_id(), status.run_id(),
        canopy::v1::JobStatus::Phase_Name(status.phase()));
    canopy::v1::AgentMessage msg;
    *msg.mutable_job_status() = std::move(status);
    Write(msg);
  }
  // GPU health is checked at the heartbeat cadence; only changes are sent.
  absl::StatusOr<std::vector<gpu::GpuDevice>> gpus = Discover();
  bool changed = false;
  if (gpus.ok()) {
    absl::MutexLock lock(&mu_);
    if (*gpus != reported_gpus_) {
      reported_gpus_ = *gpus;
      FillGpus(*gpus, health.mutable_gpu_health()->mutable_gpus());
      changed = true;
    }
  }
  if (changed) {
    runtime_->SetGpuDevices(DeviceFiles(facts_.node_name, *gpus));
  }
  if (collect_telemetry_) {
    absl::StatusOr<std::vector<gpu::GpuTelemetry>> telemetry;
    {
      absl::MutexLock lock(&discover_mu_);
      telemetry = gpus_->Telemetry();
    }
    absl::MutexLock lock(&mu_);
    telemetry_ = telemetry.ok() ? *std::move(telemetry) : std::vector<gpu::GpuTelemetry>();
  }
  if (health.has_gpu_health()) {
    Write(health);
  }
  canopy::v1::AgentMessage beat;
  {
    absl::MutexLock lock(&mu_);
    beat.mutable_heartbeat()->set_sequence(++heartbeat_sequence_);
    contact_.HeartbeatSent(heartbeat_sequence_, MonotonicNow());
  }
  Write(beat);
}

}  // namespace canopy::agent
