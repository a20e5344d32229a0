#include "agent/server/agent_setup.h"

#include <unistd.h>

#include <cstdlib>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "agent/gpu/fake_gpu_provider.h"
#include "agent/gpu/nvml_gpu_provider.h"
#include "common/auth/tls_credentials.h"
#include "common/config/cluster_config.h"
#include "common/log/absl_format.h"
#include "common/os/hostname.h"
#include "common/rpc/message_limits.h"
#include "common/slurm/hostlist.h"
#include "grpcpp/create_channel.h"
#include "spdlog/spdlog.h"

namespace canopy::agent {
namespace {

// Virtual nodes share few TCP connections: HTTP/2 multiplexes many streams on one, but
// spreading them keeps one slow connection from stalling thousands of nodes.
constexpr int kNodesPerChannel = 64;

}  // namespace

std::optional<config::ClusterConfig> FindClusterConfig() {
  for (const char* var : {"CANOPY_CONFIG", "SLURM_CONF"}) {
    if (const char* path = std::getenv(var); path != nullptr && *path != '\0') {
      absl::StatusOr<config::ClusterConfig> cfg = config::LoadClusterConfig(path);
      if (cfg.ok()) {
        return *std::move(cfg);
      }
      spdlog::warn("${}: {} (continuing without node definitions)", var, cfg.status().message());
    }
  }
  return std::nullopt;
}

namespace {

// A node without GPUs: the fake provider with a count of zero.
gpu::FakeGpuOptions NoGpus() {
  gpu::FakeGpuOptions none;
  none.count = 0;
  return none;
}

}  // namespace

std::string DefaultSpoolDir() {
  if (geteuid() == 0) {
    return "/var/spool/canopy";
  }
  const char* tmp = std::getenv("TMPDIR");
  return absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/canopy-agent-", geteuid());
}

absl::StatusOr<std::vector<std::unique_ptr<NodeSession>>> CreateSessions(
    const std::string& target, const AgentOptions& options,
    const std::optional<config::ClusterConfig>& cfg, runtime::ChildReaper* reaper) {
  const bool virtual_mode = !options.virtual_nodes.empty();
  std::vector<std::string> names;
  if (virtual_mode) {
    absl::StatusOr<std::vector<std::string>> expanded =
        slurm::ExpandHostlist(options.virtual_nodes);
    if (!expanded.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--virtual_nodes: ", expanded.status().message()));
    }
    names = *std::move(expanded);
  } else {
    names.push_back(options.node_name.empty() ? os::Hostname(true) : options.node_name);
  }
  if (names.empty()) {
    return absl::InvalidArgumentError("--virtual_nodes names no node");
  }

  std::string provider = options.gpu_provider;
  if (provider == "auto") {
    provider = virtual_mode ? "fake" : "nvml-if-present";
  }
  if (provider != "fake" && provider != "nvml" && provider != "none" &&
      provider != "nvml-if-present") {
    return absl::InvalidArgumentError(absl::StrCat("--gpu_provider: '", options.gpu_provider,
                                                   "' is not one of auto, nvml, fake, none"));
  }

  absl::flat_hash_map<std::string, const config::NodeConfig*> configured;
  if (cfg.has_value()) {
    for (const config::NodeConfig& n : cfg->nodes) {
      configured[n.name] = &n;
    }
  }
  const std::string hostname = os::Hostname(true);
  const int real_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  const int64_t real_mem_mib =
      static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE) / (1024 * 1024);

  const config::SecurityConfig security =
      cfg.has_value() ? cfg->security : config::SecurityConfig();
  const bool own_cert = !options.tls_cert.empty() || !options.tls_key.empty();
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials = auth::ChannelCredentials(
      security, target, own_cert ? options.tls_cert : security.tls_agent_cert,
      own_cert ? options.tls_key : security.tls_agent_key);
  if (!credentials.ok()) {
    return credentials.status();
  }

  std::vector<std::unique_ptr<NodeSession>> sessions;
  std::shared_ptr<grpc::Channel> channel;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i % kNodesPerChannel == 0) {
      grpc::ChannelArguments args;
      // A distinct argument per channel stops gRPC from sharing one connection among them.
      args.SetInt("canopy.channel_index", static_cast<int>(i / kNodesPerChannel));
      args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 20000);
      args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
      // A LaunchJob carries the script and environment: never over what this accepts.
      args.SetMaxReceiveMessageSize(rpc::kMaxReplyBytes);
      channel = grpc::CreateCustomChannel(target, *credentials, args);
    }
    const std::string& name = names[i];
    auto it = configured.find(name);
    const config::NodeConfig* nc = it == configured.end() ? nullptr : it->second;

    NodeFacts facts;
    facts.node_name = name;
    facts.hostname = hostname;
    facts.cpus = options.cpus > 0                  ? options.cpus
                 : (virtual_mode && nc != nullptr) ? nc->cpus
                                                   : real_cpus;
    facts.real_memory_mib = options.memory_mib > 0            ? options.memory_mib
                            : (virtual_mode && nc != nullptr) ? nc->real_memory_mib
                                                              : real_mem_mib;

    std::unique_ptr<gpu::GpuProvider> gpus;
    if (provider == "fake") {
      gpu::FakeGpuOptions fake;
      int configured_gpus = 0;
      if (nc != nullptr) {
        for (const config::GpuConfig& g : nc->gpus) {
          configured_gpus += g.count;
        }
      }
      fake.count = options.fake_gpus >= 0 ? options.fake_gpus : nc != nullptr ? configured_gpus : 8;
      fake.model = options.fake_gpu_model;
      fake.faults_file = options.fake_gpu_faults;
      fake.device_files = options.fake_gpu_device_files;
      gpus = std::make_unique<gpu::FakeGpuProvider>(name, fake);
    } else if (provider == "none") {
      gpus = std::make_unique<gpu::FakeGpuProvider>(name, NoGpus());
    } else {
      absl::StatusOr<std::unique_ptr<gpu::NvmlGpuProvider>> nvml = gpu::NvmlGpuProvider::Open();
      if (nvml.ok()) {
        gpus = *std::move(nvml);
      } else if (provider == "nvml") {
        return nvml.status();
      } else {
        spdlog::info("{}; reporting no GPUs", nvml.status().message());
        gpus = std::make_unique<gpu::FakeGpuProvider>(name, NoGpus());
      }
    }
    runtime::RuntimeOptions rt;
    rt.node_name = name;
    rt.spool_dir = virtual_mode ? absl::StrCat(options.spool_dir, "/", name) : options.spool_dir;
    rt.cgroup_parent = options.cgroup_parent;
    rt.min_job_uid = options.min_job_uid;
    rt.allow_root_jobs = options.allow_root_jobs;
    rt.spank = options.spank;
    rt.scripts = options.scripts;
    // Virtual nodes, or a node said to have more CPUs than the host, share the host's CPUs with
    // others this runtime cannot see: pinning would stack their jobs on the same CPUs.
    rt.pin_cpus = !virtual_mode && facts.cpus <= real_cpus;
    // ROCR_VISIBLE_DEVICES instead of CUDA_VISIBLE_DEVICES on AMD nodes.
    if (absl::StatusOr<std::vector<gpu::GpuDevice>> found = gpus->Discover();
        found.ok() && !found->empty()) {
      rt.amd_gpus = found->front().vendor == "amd";
    }
    sessions.push_back(std::make_unique<NodeSession>(
        std::move(facts), channel, security, std::move(gpus), BackoffOptions{},
        static_cast<uint32_t>(i), std::move(rt), reaper));
  }
  return sessions;
}

}  // namespace canopy::agent
