// Node states as sinfo shows and filters them: Slurm 22.05's state word (a base state plus
// flag bits, the values of slurm.h), its names ("idle", "drng", "mix-", "down*") and sinfo -t's
// state list. Pure; thread-safe.
//
// What Canopy can produce (SlurmNodeState): the bases UNKNOWN, IDLE, MIXED, ALLOCATED and
// DOWN, and the flags DRAIN, NO_RESPOND ("*") and PLANNED (idle nodes a pending job's backfill
// plan holds print "planned" / "plnd"; Slurm 22.05 flags no other node, so the "-" suffix of
// "mix-" never shows). The other flags (power saving "~ # ! %", maintenance
// reservations "$", reboots "@ ^", FAIL, COMPLETING, ...) are named exactly as Slurm names them,
// so they print right once the controller reports them, but no Canopy node carries them today.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "canopy/v1/types.pb.h"

namespace canopy::ctl::sinfo {

// Slurm 22.05's node state bits (slurm.h). The numeric values matter: sinfo sorts rows by them
// ("-t" in the default sort "#P,-t" puts drained before idle before down).
inline constexpr uint32_t kStateUnknown = 0;
inline constexpr uint32_t kStateDown = 1;
inline constexpr uint32_t kStateIdle = 2;
inline constexpr uint32_t kStateAllocated = 3;
inline constexpr uint32_t kStateError = 4;
inline constexpr uint32_t kStateMixed = 5;
inline constexpr uint32_t kStateFuture = 6;
inline constexpr uint32_t kStateBase = 0xf;
inline constexpr uint32_t kFlagNet = 0x10;
inline constexpr uint32_t kFlagReserved = 0x20;
inline constexpr uint32_t kFlagCloud = 0x80;
inline constexpr uint32_t kFlagDrain = 0x200;
inline constexpr uint32_t kFlagCompleting = 0x400;
inline constexpr uint32_t kFlagNoRespond = 0x800;
inline constexpr uint32_t kFlagPoweredDown = 0x1000;
inline constexpr uint32_t kFlagFail = 0x2000;
inline constexpr uint32_t kFlagPoweringUp = 0x4000;
inline constexpr uint32_t kFlagMaint = 0x8000;
inline constexpr uint32_t kFlagRebootRequested = 0x10000;
inline constexpr uint32_t kFlagPoweringDown = 0x40000;
inline constexpr uint32_t kFlagRebootIssued = 0x100000;
inline constexpr uint32_t kFlagPlanned = 0x200000;
inline constexpr uint32_t kFlagInvalidReg = 0x400000;
inline constexpr uint32_t kFlagPowerDown = 0x800000;

// The state word of a node. ALLOCATED and MIXED follow Slurm's rule (all CPUs allocated, or
// some), whatever the controller's rule for GPUs. `planned`: a pending job's backfill plan names it
// (flagged only when the node is idle and not drained, as Slurm flags it). The base comes from
// `state`; for a record without it (older controllers) from `slurm_state`. NO_RESPOND is set for
// `not_responding` and for a node the controller marks "*" (never registered).
uint32_t SlurmNodeState(const canopy::v1::Node& node, bool planned);

// node_state_string(): "IDLE", "DRAINING*", "MIXED-", "PLANNED", ... (sinfo prints it lower
// case). `compact`: node_state_string_compact(): "IDLE", "DRNG*", "MIX-", "PLND", ...
std::string NodeStateName(uint32_t state, bool compact);

// StateComplete: the base state and every flag, lower case, "+"-joined ("idle+drain").
std::string NodeStateComplete(uint32_t state);

// One item of sinfo -t.
struct StateFilter {
  std::vector<uint32_t> ids;  // Slurm's ids, as _node_state_id returns them ("all": each base,
                              // DRAIN and COMPLETING)
  bool require_all = false;   // items joined by '&': a node must match each
};

// Parses -t: comma- (or '&'-) separated, case-insensitive, each item a prefix of a state name
// ("id" = idle). InvalidArgument with sinfo's two error lines (without "sinfo: error: "
// prefixes; the caller adds them) for an unknown item:
//   Bad state string: "bogus"
//   valid states: unknown,down,idle,...
absl::StatusOr<StateFilter> ParseStateFilter(absl::string_view text);

// Whether a node (its state word; `allocated`: it holds CPUs or GPUs of jobs) passes the filter,
// by sinfo's _filter_out: "drain" matches any drain flag, "drained"/"draining" the two halves,
// "alloc" any node with allocated CPUs, "idle" only a plain idle node (not responding allowed),
// flag states their flag, other bases their base.
bool StateFilterMatches(const StateFilter& filter, uint32_t state, bool allocated);

}  // namespace canopy::ctl::sinfo
