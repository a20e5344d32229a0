// PlacementResult: the outcome of placing one job, with the explanation of why.
//
// "Cannot place" is a value (kWait / kInfeasible with a reason), never an error Status
// (STYLE.md rule 4). The explanation feeds squeue's reason column, `scontrol show job` and the
// simulator's comparisons. Plain value types.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "scheduler/core/ids.h"

namespace canopy::placement {

enum class Outcome {
  kPlaced,      // nodes chosen
  kWait,        // may fit later (resources busy, nodes down, switch limit not met yet)
  kInfeasible,  // can never fit this cluster as configured
};

enum class PendingReason {
  kNone,
  kResources,        // not enough eligible nodes under one switch now
  kReqNodeNotAvail,  // a required node is down, drained or unhealthy
  kSwitchLimit,      // --switches=K cannot be met yet and the wait has not run out
  kBadConstraints,   // never satisfiable here (size, GPU type, partition, required nodes)
};

// The reason as squeue prints it. Slurm shows "Resources" for a job held back by --switches
// (observed with Slurm 22.05, SLURM-NOTES.md), so kSwitchLimit maps there too; the detail text
// says which limit it was.
absl::string_view SlurmReasonName(PendingReason reason);
absl::string_view OutcomeName(Outcome outcome);

// Why a node could not take the job. Static causes never change without reconfiguration.
enum class RejectCause {
  kDown,
  kUnhealthy,
  kDrained,
  kNotInPartition,   // static
  kExcluded,         // static (-x)
  kGpuType,          // static
  kTooFewGpus,       // static: total GPUs < per-node request
  kTooFewCpus,       // static
  kTooLittleMemory,  // static
  kHeldExclusive,    // an exclusive job holds it
  kNotIdle,          // the job is exclusive and the node has a job
  kGpusBusy,
  kCpusBusy,
  kMemoryBusy,
  kCount,
};
inline constexpr int kRejectCauseCount = static_cast<int>(RejectCause::kCount);
absl::string_view RejectCauseName(RejectCause cause);
bool IsStatic(RejectCause cause);

struct NodeAssignment {
  core::NodeId node;
  int32_t gpus = 0;  // GPUs this job takes on the node
  friend bool operator==(const NodeAssignment&, const NodeAssignment&) = default;
};

struct Explanation {
  std::string policy;          // "placement/canopy"
  int32_t eligible_nodes = 0;  // nodes that could take one node's share of the job now
  // Nodes rejected, per cause. Complete when the job did not start; when it did, nodes in
  // leaves skipped through aggregates may be missing.
  std::array<int32_t, kRejectCauseCount> rejected{};

  // The domain the job was placed in (or, for a switch-limit wait, the best one found).
  std::string domain;                         // "spine001", "rack3", "rack1..rack4", "" if none
  core::SwitchId switch_id;                   // when the domain is a switch
  int32_t switch_level = -1;                  // topology level of switch_id (0 = leaf)
  int32_t domain_level = -1;                  // level in the DomainTree
  int32_t candidates = 0;                     // domains at that level that could hold the job
  std::vector<core::SwitchId> leaf_switches;  // leaf switches used, ascending
  std::vector<core::BlockId> blocks;          // blocks used, ascending
  int32_t units_used = 0;                     // what --switches counts (leaf switches, else blocks)
  int32_t min_units = 0;                      // fewest units any placement in `domain` could use
  bool switch_limit_waived = false;           // --switches wait ran out; placed beyond K

  // One line for logs and `scontrol show job`, e.g.
  // "placement/canopy: spine001 (level 1), 2 leaf switches (min 2), 256 eligible".
  std::string ToString() const;
};

struct PlacementResult {
  Outcome outcome = Outcome::kWait;
  std::vector<NodeAssignment> nodes;  // kPlaced: ascending NodeId
  PendingReason reason = PendingReason::kNone;
  std::string detail;  // human sentence for a wait / infeasible outcome
  Explanation explanation;

  bool placed() const { return outcome == Outcome::kPlaced; }
};

}  // namespace canopy::placement
