#include "scheduler/server/proto_convert.h"

namespace canopy::server {
namespace {

canopy::v1::NodeState NodeStateToProto(state::NodeBaseState s) {
  switch (s) {
    case state::NodeBaseState::kUnknown:
      return canopy::v1::NODE_STATE_UNKNOWN;
    case state::NodeBaseState::kIdle:
      return canopy::v1::NODE_STATE_IDLE;
    case state::NodeBaseState::kMixed:
      return canopy::v1::NODE_STATE_MIXED;
    case state::NodeBaseState::kAllocated:
      return canopy::v1::NODE_STATE_ALLOCATED;
    case state::NodeBaseState::kDown:
      return canopy::v1::NODE_STATE_DOWN;
  }
  return canopy::v1::NODE_STATE_UNSPECIFIED;
}

}  // namespace

std::vector<state::GpuStatus> GpusFromProto(
    const google::protobuf::RepeatedPtrField<canopy::v1::Gpu>& gpus) {
  std::vector<state::GpuStatus> out;
  out.reserve(gpus.size());
  for (const canopy::v1::Gpu& g : gpus) {
    out.push_back(state::GpuStatus{
        .index = g.index(),
        .uuid = g.uuid(),
        .model = g.model(),
        .vendor = g.vendor(),
        .memory_mib = g.memory_mib(),
        // An agent that does not report health (UNSPECIFIED) has not seen a fault.
        .healthy = g.health() != canopy::v1::GPU_HEALTH_UNHEALTHY,
        .health_reason = g.health_reason(),
    });
  }
  return out;
}

state::NodeRegistration FromProto(const canopy::v1::Register& reg) {
  state::NodeRegistration r;
  r.hostname = reg.hostname();
  r.agent_version = reg.agent_version();
  r.cpus = reg.cpus();
  r.real_memory_mib = reg.real_memory_mib();
  r.gpus = GpusFromProto(reg.gpus());
  r.boot_time = rpc::FromProtoTime(reg.boot_time());
  return r;
}

canopy::v1::Node NodeToProto(const state::NodeRecord& node, const state::NodeUse& use,
                             const config::NodeConfig& config,
                             const std::vector<std::string>& partitions,
                             const topology::Topology& topology, absl::Time last_heard) {
  canopy::v1::Node out;
  out.set_name(node.name);
  out.set_state(NodeStateToProto(node.BaseState(use)));
  out.set_drain(node.drain);
  // As in Slurm, a node never heard from since the controller started is not responding too.
  out.set_not_responding(node.not_responding || !node.ever_registered);
  out.set_reason(node.reason);
  if (node.reason_time != absl::InfinitePast()) {
    *out.mutable_reason_time() = rpc::ToProtoTime(node.reason_time);
  }
  out.set_reason_user(node.reason_user);
  out.set_cpus(node.cpus);
  out.set_real_memory_mib(node.real_memory_mib);
  out.set_gpus_configured(node.gpus_configured);
  out.set_gpu_type(node.gpu_type);
  for (const state::GpuStatus& g : node.registration.gpus) {
    canopy::v1::Gpu* gpu = out.add_gpus();
    gpu->set_index(g.index);
    gpu->set_uuid(g.uuid);
    gpu->set_model(g.model);
    gpu->set_vendor(g.vendor);
    gpu->set_memory_mib(g.memory_mib);
    gpu->set_health(g.healthy ? canopy::v1::GPU_HEALTH_HEALTHY : canopy::v1::GPU_HEALTH_UNHEALTHY);
    gpu->set_health_reason(g.health_reason);
  }
  for (const std::string& p : partitions) {
    out.add_partitions(p);
  }
  for (core::SwitchId sw : topology.SwitchPath(node.id)) {
    out.add_switch_path(topology.switch_name(sw));
  }
  if (last_heard != absl::InfinitePast()) {
    *out.mutable_last_heartbeat() = rpc::ToProtoTime(last_heard);
  }
  if (node.registration.boot_time != absl::InfinitePast()) {
    *out.mutable_boot_time() = rpc::ToProtoTime(node.registration.boot_time);
  }
  out.set_agent_version(node.registration.agent_version);
  out.set_alloc_cpus(use.cpus);
  out.set_alloc_gpus(use.gpus);
  out.set_alloc_memory_mib(use.memory_mib);
  out.set_slurm_state(state::SlurmStateName(node, false, use));
  out.set_slurm_state_long(state::SlurmStateName(node, true, use));
  for (const std::string& f : config.features) {
    out.add_features(f);
  }
  out.set_weight(config.weight);
  if (config.sockets > 0) {
    out.set_boards(config.boards);
    out.set_sockets(config.sockets);
    out.set_cores_per_socket(config.cores_per_socket);
    out.set_threads_per_core(config.threads_per_core);
  } else {  // only CPUs= configured: Slurm reports one single-threaded core per socket
    out.set_boards(1);
    out.set_sockets(config.cpus);
    out.set_cores_per_socket(1);
    out.set_threads_per_core(1);
  }
  return out;
}

}  // namespace canopy::server
