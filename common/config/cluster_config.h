// ClusterConfig: the cluster description every Canopy program starts from.
//
// Loaded from either Canopy's YAML (docs/formats/config.md) or a Slurm slurm.conf (with the
// topology.conf beside it). The loaders return plain values; nothing here talks to the network.
// Thread-compatible value types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/config/node_scripts.h"
#include "common/config/scheduling_policy.h"
#include "common/config/security_config.h"

namespace canopy::config {

enum class ConfigFormat { kCanopyYaml, kSlurmConf };

// One kind of GPU on a node, from `Gres=gpu:h100:8` (type "h100", count 8) or `Gres=gpu:8`
// (type "", count 8) in slurm.conf, or `gpus: {type: h100, count: 8}` in YAML.
struct GpuConfig {
  std::string type;
  int count = 0;
};

// One node, with hostlists already expanded (one NodeConfig per node name).
struct NodeConfig {
  std::string name;
  int cpus = 1;
  int64_t real_memory_mib = 1;  // Slurm's RealMemory, in MiB (Slurm's default is 1)
  std::vector<GpuConfig> gpus;
  int weight = 1;
  std::vector<std::string> features;
  // NodeAddr (slurm.conf) / `addr` (YAML): where the node's agent connects from. With it set,
  // canopyd accepts the node's registration only from that address (or from an agent whose
  // certificate names it); empty: the node name itself.
  std::string addr;
  // The CPU layout Slurm reports (scontrol show node, sinfo %z). With only CPUs= configured,
  // Slurm's default: CPUs sockets of one single-threaded core each. 0 = that default.
  int boards = 0;
  int sockets = 0;
  int cores_per_socket = 0;
  int threads_per_core = 0;
};

struct PartitionConfig {
  std::string name;
  std::vector<std::string> nodes;  // expanded node names ("ALL" expanded to every node)
  bool is_default = false;
  bool up = true;                                      // State=UP (false for DOWN/DRAIN/INACTIVE)
  absl::Duration max_time = absl::InfiniteDuration();  // MaxTime; infinite = UNLIMITED
  absl::Duration default_time = absl::InfiniteDuration();  // DefaultTime; infinite = NONE
  int64_t max_nodes = -1;                                  // -1 = UNLIMITED
  PartitionPolicy policy;  // billing weights, priority factor and tier
};

// Where the topology comes from. The config loader reads the file; the topology readers
// (scheduler/topology/readers) parse `text`, naming `origin` in their errors.
struct TopologySource {
  enum class Kind { kNone, kSlurmTopologyConf, kYaml };
  Kind kind = Kind::kNone;
  std::string origin;  // file name used in error messages ("…/topology.conf", "canopy.yaml")
  std::string text;    // topology.conf contents, or the YAML `topology:` section re-emitted
  int first_line = 1;  // line of `text`'s first line inside `origin` (for YAML inline sections)
};

struct ClusterConfig {
  ConfigFormat format = ConfigFormat::kCanopyYaml;
  std::string path;  // the file this came from
  std::string cluster_name = "canopy";

  // Where canopyd listens and where clients find it. From slurm.conf: SlurmctldHost
  // (`name(addr)` uses addr; "localhost" means 127.0.0.1) and SlurmctldPort (default 6817).
  std::string controller_host;  // empty = not configured; clients then need --controller
  int controller_port = 6817;
  std::string state_dir;    // StateSaveLocation (default /var/spool/slurmctld) or YAML
                            // `state_dir` (default /var/spool/canopy)
  std::string unix_socket;  // default: <state_dir>/canopyd.sock

  absl::Duration node_timeout = absl::Seconds(300);       // SlurmdTimeout (Slurm default 300 s)
  absl::Duration heartbeat_interval = absl::Seconds(10);  // how often agents report
  absl::Duration kill_wait = absl::Seconds(30);           // KillWait (Slurm default 30 s)
  // How long every agent of a new allocation has to confirm the launch before the job goes back
  // to PENDING (slurm.conf BatchStartTimeout, Slurm default 10 s).
  absl::Duration launch_timeout = absl::Seconds(10);
  // How long a finished job stays listed by squeue (slurm.conf MinJobAge, Slurm default 300 s).
  absl::Duration min_job_age = absl::Seconds(300);
  // Users who may administer the cluster (drain nodes, cancel any job), besides root and the
  // user canopyd runs as. YAML `operators`; slurm.conf SlurmUser.
  std::vector<std::string> operators;

  // Authentication, TLS and who may submit for whom (security_config.h, docs/security.md).
  SecurityConfig security;

  std::vector<NodeConfig> nodes;
  std::vector<PartitionConfig> partitions;
  std::string topology_plugin;  // "topology/tree", "topology/block", or "" (flat)
  TopologySource topology;

  // SPANK plugins (plugins/spank): their plugstack.conf (slurm.conf PlugStackConfig, YAML
  // `plugstack_config`; relative to this file's directory; default plugstack.conf beside this
  // file, which may then be absent: no plugins) and where plugins named by a relative path are
  // looked up (PluginDir, YAML `plugin_dir`: colon-separated directories).
  std::string plugstack_config;
  bool plugstack_config_explicit = false;
  std::string plugin_dir = "/usr/lib/x86_64-linux-gnu/slurm-wlm:/usr/lib64/slurm:/usr/lib/slurm";

  // Prolog, Epilog, TaskProlog, TaskEpilog and PrologFlags (node_scripts.h).
  NodeScripts node_scripts;

  // Settings Slurm has no key for (canopy_conf.h): in the YAML, or in canopy.conf beside
  // slurm.conf. HOST:PORT canopyd serves Prometheus metrics on (/metrics); empty: none.
  std::string metrics_listen;
  // HOST:PORT each canopy-agent serves its nodes' and GPUs' metrics on (canopy-agent
  // --metrics_listen wins); empty: none.
  std::string agent_metrics_listen;
  // HOST:PORT canopyd serves the live cluster view on (docs/web.md); empty: none. The page needs
  // no login, so an address beyond loopback also needs web_allow_remote: true.
  std::string web_listen;
  bool web_allow_remote = false;
  // Who canopyd answers gRPC server reflection (grpcurl without the .proto files) for: nobody,
  // authenticated callers (unix socket, MUNGE, or a verified TLS client certificate), or
  // everyone who can connect. YAML/canopy.conf `grpc_reflection: off|authenticated|everyone`;
  // canopyd --grpc-reflection raises `off` to `authenticated`.
  enum class ReflectionAccess { kOff, kAuthenticated, kEveryone };
  ReflectionAccess grpc_reflection = ReflectionAccess::kOff;

  // Priority, fair share, the scheduler and accounting (scheduling_policy.h).
  SchedulingPolicy scheduling;

  // Keys present in the file that Canopy does not use ("SelectType", "PriorityType", ...),
  // each once, in file order. canopyd lists them at start-up.
  std::vector<std::string> unused_keys;
};

// Reads `path`, detecting the format: a file ending in .yaml/.yml is Canopy YAML, anything else
// is slurm.conf (whose topology.conf, when TopologyPlugin asks for one, is read from the same
// directory). Errors are InvalidArgument naming the file, the line and the field, e.g.
//   "slurm.conf:14: NodeName=gpu[001-016]: CPUs: expected a positive integer, got 'x'"
// NotFound if a file cannot be read (PermissionDenied if it may not be read, FailedPrecondition
// if it is a directory), with the path and strerror in the message.
absl::StatusOr<ClusterConfig> LoadClusterConfig(const std::string& path);
// The same without reading the topology file (`topology.kind` stays kNone): for clients, which
// need only the controller's address, socket and security settings. On a 16,384-node cluster
// topology.conf is most of the time a CLI call would spend on its config.
absl::StatusOr<ClusterConfig> LoadClusterConfigWithoutTopology(const std::string& path);

// The same, from text already in memory (`origin` is used in messages and for finding
// topology.conf; `read_topology` = false skips reading topology.conf, for tests).
// With read_topology = false, `topology.origin` still names the file that would have been read
// but `topology.kind` stays kNone. Errors: InvalidArgument for bad content; the codes of
// LoadClusterConfig when a topology file cannot be read.
absl::StatusOr<ClusterConfig> ParseSlurmConf(const std::string& text, const std::string& origin,
                                             bool read_topology = true);
// `read_topology` as above, for `topology_file:` (an inline `topology:` section is always kept).
absl::StatusOr<ClusterConfig> ParseCanopyYaml(const std::string& text, const std::string& origin,
                                              bool read_topology = true);

// The config file the environment names: $CANOPY_CONFIG, else $SLURM_CONF (the first that is
// set and not empty), with the variable's name for messages; nullopt when neither is.
struct EnvironmentConfigFile {
  std::string variable;  // "CANOPY_CONFIG" or "SLURM_CONF"
  std::string path;
};
std::optional<EnvironmentConfigFile> ConfigFileFromEnvironment();

// The controller address for clients and agents: "HOST:PORT" ("[ADDR]:PORT" for an IPv6
// address), or FailedPrecondition if the config names no controller host.
absl::StatusOr<std::string> ControllerAddress(const ClusterConfig& config);

}  // namespace canopy::config
