// NodeRecord: everything the controller knows about one node, and the rules that derive its
// Slurm-visible state from those facts.
//
// Value type owned by ClusterState (single writer); snapshots hold copies. Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "scheduler/core/ids.h"

namespace canopy::state {

// Slurm's base node states (sinfo prints them lower-case).
enum class NodeBaseState { kUnknown, kIdle, kMixed, kAllocated, kDown };

// One GPU as the node's agent reported it.
struct GpuStatus {
  int index = 0;
  std::string uuid;
  std::string model;
  std::string vendor;
  int64_t memory_mib = 0;
  bool healthy = true;
  std::string health_reason;
};

// What an agent tells the controller when it (re)connects.
struct NodeRegistration {
  std::string hostname;
  std::string agent_version;
  int cpus = 0;
  int64_t real_memory_mib = 0;
  std::vector<GpuStatus> gpus;
  absl::Time boot_time = absl::InfinitePast();
};

// What jobs hold on a node. Not part of NodeRecord: it changes with every job that starts or
// ends, and a published snapshot copies it (16 bytes a node) far more often than the records.
struct NodeUse {
  int cpus = 0;
  int gpus = 0;
  int64_t memory_mib = 0;
};

struct NodeRecord {
  // From the configuration; never changes while the controller runs.
  core::NodeId id;
  std::string name;
  int cpus = 1;
  int64_t real_memory_mib = 1;
  int gpus_configured = 0;
  std::string gpu_type;

  // From the agent.
  bool ever_registered = false;  // since this controller started
  bool connected = false;        // its stream is open now
  absl::Time last_heard = absl::InfinitePast();
  absl::Time disconnected_since = absl::InfinitePast();
  NodeRegistration registration;

  // Availability. `not_responding` is set by the controller and cleared when the agent comes
  // back; `admin_down` and `drain` are set by an admin (or by a health rule) and survive restarts.
  bool not_responding = false;
  bool admin_down = false;
  bool drain = false;
  std::string reason;
  absl::Time reason_time = absl::InfinitePast();
  std::string reason_user;

  // Idle, mixed or allocated by what jobs hold on it (`use`), or down or unknown by the above.
  NodeBaseState BaseState(const NodeUse& use) const;
  // True when new work may be placed here: responding, not down, not drained.
  bool Usable() const { return ever_registered && !not_responding && !admin_down && !drain; }
};

// Slurm's spelling of a node's state for sinfo's %t/%T: "idle", "mix", "alloc", "down*",
// "drain", "drng", "unk*" (long = true gives "mixed", "allocated", "draining", "unknown*").
std::string SlurmStateName(const NodeRecord& node, bool long_form, const NodeUse& use);

}  // namespace canopy::state
