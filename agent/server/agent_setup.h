// Turns the agent's command line (and the cluster config, when one is found) into one
// NodeSession per hosted node.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/runtime/child_reaper.h"
#include "agent/runtime/job_scripts.h"
#include "agent/runtime/spank_wrapper.h"
#include "agent/server/node_session.h"
#include "common/config/cluster_config.h"

namespace canopy::agent {

struct AgentOptions {
  std::string virtual_nodes;  // hostlist; empty = this host only
  std::string node_name;      // empty = short host name
  // This host's certificate and key for mTLS (--tls_cert/--tls_key); empty: the config's
  // tls_agent_cert/tls_agent_key.
  std::string tls_cert;
  std::string tls_key;
  std::string gpu_provider = "auto";
  int fake_gpus = -1;
  std::string fake_gpu_model;
  std::string fake_gpu_faults;
  std::string fake_gpu_device_files;  // FakeGpuOptions::device_files
  int cpus = 0;
  int64_t memory_mib = 0;
  // Where batch scripts are spooled; each virtual node gets a subdirectory named after it.
  std::string spool_dir;
  // cgroup v2 directory for job cgroups (see runtime::RuntimeOptions); empty: none.
  std::string cgroup_parent;
  // Whose jobs run here (runtime::RuntimeOptions): --min_job_uid, --allow_root_jobs.
  uint32_t min_job_uid = 1000;
  bool allow_root_jobs = false;
  // The site's SPANK plugins and node scripts (AgentSpank).
  runtime::SpankSettings spank;
  runtime::JobScriptSettings scripts;
};

// The cluster config, when $CANOPY_CONFIG or $SLURM_CONF names one that loads; the agent works
// without it (a config that does not load is logged).
std::optional<config::ClusterConfig> FindClusterConfig();

// InvalidArgument for a bad hostlist or provider name; Unavailable when --gpu_provider=nvml and
// NVML cannot be loaded. `reaper` must outlive the sessions.
// `config`: FindClusterConfig()'s answer (node definitions for virtual nodes).
absl::StatusOr<std::vector<std::unique_ptr<NodeSession>>> CreateSessions(
    const std::string& target, const AgentOptions& options,
    const std::optional<config::ClusterConfig>& config, runtime::ChildReaper* reaper);

// The default --spool_dir: /var/spool/canopy as root, else $TMPDIR (or /tmp)/canopy-agent-<uid>.
std::string DefaultSpoolDir();

}  // namespace canopy::agent
