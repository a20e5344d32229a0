#include "ctl/sinfo/node_state.h"

#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace canopy::ctl::sinfo {
namespace {

uint32_t BaseFromName(absl::string_view name) {
  if (absl::StartsWith(name, "idle") || absl::StartsWith(name, "drain")) {
    return kStateIdle;
  }
  if (absl::StartsWith(name, "mix") || absl::StartsWith(name, "drng") ||
      absl::StartsWith(name, "draining")) {
    return kStateMixed;
  }
  if (absl::StartsWith(name, "alloc")) {
    return kStateAllocated;
  }
  if (absl::StartsWith(name, "down")) {
    return kStateDown;
  }
  return kStateUnknown;
}

// The one suffix character Slurm appends for the flags below, in the order it tests them.
std::string Suffix(uint32_t state) {
  if (state & kFlagMaint) return "$";
  if (state & kFlagRebootRequested) return "@";
  if (state & kFlagPoweringUp) return "#";
  if (state & kFlagPoweringDown) return "%";
  if (state & kFlagPoweredDown) return "~";
  if (state & kFlagPowerDown) return "!";
  if (state & kFlagNoRespond) return "*";
  return "";
}

// One name sinfo -t accepts, with the id _node_state_id returns for it, in its search order.
struct NamedState {
  const char* long_name;
  const char* compact_name;
  uint32_t id;
};

constexpr NamedState kBaseNames[] = {
    {"UNKNOWN", "UNK", kStateUnknown}, {"DOWN", "DOWN", kStateDown},
    {"IDLE", "IDLE", kStateIdle},      {"ALLOCATED", "ALLOC", kStateAllocated},
    {"?", "?", kStateError},           {"MIXED", "MIX", kStateMixed},
    {"FUTURE", "FUTR", kStateFuture},
};

constexpr NamedState kFlagNames[] = {
    {"PLANNED", "PLND", kFlagPlanned},
    {"DRAIN", "DRAIN", kFlagDrain},
    {"DRAINED", "DRAINED", kFlagDrain | kStateIdle},
    {"RESERVED", "RESV", kFlagReserved},
    {"PERFCTRS", "NPC", kFlagNet},
    {"DRAINING", "DRNG", kFlagDrain | kStateAllocated},
    {"COMPLETING", "COMP", kFlagCompleting},
    {"NO_RESPOND", "NO_RESPOND", kFlagNoRespond},
    {"POWERING_DOWN", "POWRNG_DN", kFlagPoweringDown},
    {"POWERED_DOWN", "POW_DN", kFlagPoweredDown},
    {"POWER_DOWN", "POW_DN", kFlagPowerDown},
    {"POWERING_UP", "POW_UP", kFlagPoweringUp},
    {"FAIL", "FAIL", kFlagFail},
    {"MAINT", "MAINT", kFlagMaint},
    {"REBOOT", "BOOT", kFlagRebootRequested},
    {"REBOOT^", "BOOT^", kFlagRebootIssued},
    {"CLOUD", "CLOUD", kFlagCloud},
};

// Slurm 22.05's list after "valid states: ", as sinfo prints it (its "?" and its second
// "unknown", which is the name of PLANNED alone, included).
constexpr char kValidStates[] =
    "unknown,down,idle,allocated,?,mixed,future,drain,drained,draining,no_respond,reserved,"
    "perfctrs,cloud,completing,powering_down,powered_down,power_down,powering_up,fail,maint,"
    "reboot,reboot^,unknown";

bool IsPrefixOf(absl::string_view item, absl::string_view name) {
  return item.size() <= name.size() && absl::EqualsIgnoreCase(name.substr(0, item.size()), item);
}

// _node_state_id: bases first (either name), then the flag names.
std::optional<uint32_t> StateId(absl::string_view item) {
  for (const NamedState& s : kBaseNames) {
    if (IsPrefixOf(item, s.compact_name) || IsPrefixOf(item, s.long_name)) {
      return s.id;
    }
  }
  for (const NamedState& s : kFlagNames) {
    if (IsPrefixOf(item, s.long_name) || IsPrefixOf(item, s.compact_name)) {
      return s.id;
    }
  }
  return std::nullopt;
}

bool Draining(uint32_t state) {
  const uint32_t base = state & kStateBase;
  return (state & kFlagDrain) &&
         ((state & kFlagCompleting) || base == kStateAllocated || base == kStateMixed);
}

bool MatchesOne(uint32_t id, uint32_t state, bool allocated) {
  if (id == kFlagDrain) {
    return (state & kFlagDrain) != 0;
  }
  if (id == (kFlagDrain | kStateAllocated)) {
    return Draining(state);
  }
  if (id == (kFlagDrain | kStateIdle)) {
    return (state & kFlagDrain) && !Draining(state);
  }
  if (id & ~kStateBase) {
    return (state & id) != 0;
  }
  if (id == kStateError) {
    return false;  // Slurm asks the select plugin for CPUs in error; Canopy has none
  }
  if (id == kStateAllocated) {
    return allocated;
  }
  return (state & kStateBase) == id;
}

}  // namespace

uint32_t SlurmNodeState(const canopy::v1::Node& node, bool planned) {
  uint32_t state = kStateUnknown;
  switch (node.state()) {
    case canopy::v1::NODE_STATE_IDLE:
      state = kStateIdle;
      break;
    case canopy::v1::NODE_STATE_MIXED:
      state = kStateMixed;
      break;
    case canopy::v1::NODE_STATE_ALLOCATED:
      state = kStateAllocated;
      break;
    case canopy::v1::NODE_STATE_DOWN:
      state = kStateDown;
      break;
    case canopy::v1::NODE_STATE_UNKNOWN:
      state = kStateUnknown;
      break;
    default:
      state = BaseFromName(node.slurm_state());
      break;
  }
  // Slurm tells ALLOCATED from MIXED by CPUs alone: a node whose GPUs are all taken by a
  // one-CPU job is "mixed" (the reference's gpu003). Canopy's controller counts GPUs too.
  if ((state == kStateAllocated || state == kStateMixed) && node.cpus() > 0) {
    state = node.alloc_cpus() >= node.cpus() ? kStateAllocated : kStateMixed;
  }
  const std::string& name = node.slurm_state();
  if (node.drain() || absl::StartsWith(name, "drain") || absl::StartsWith(name, "drng")) {
    state |= kFlagDrain;
  }
  if (node.not_responding() || absl::EndsWith(name, "*")) {
    state |= kFlagNoRespond;
  }
  // Slurm 22.05's backfill flags only the idle nodes of a plan: a mixed node a pending job will
  // get stays "mix" (checked against the real sinfo).
  if (planned && (state & kStateBase) == kStateIdle && !(state & kFlagDrain)) {
    state |= kFlagPlanned;
  }
  return state;
}

// node_state_string / node_state_string_compact of Slurm 22.05, for every flag sinfo shows.
std::string NodeStateName(uint32_t state, bool compact) {
  const uint32_t base = state & kStateBase;
  const bool no_respond = state & kFlagNoRespond;
  const bool completing = state & kFlagCompleting;
  const std::string suffix = Suffix(state);
  auto pick = [compact](const char* long_name, const char* compact_name) {
    return std::string(compact ? compact_name : long_name);
  };
  if (state & kFlagInvalidReg) {
    return "INVAL";
  }
  if ((state & kFlagMaint) && !(state & kFlagDrain) && base != kStateAllocated &&
      base != kStateDown && base != kStateMixed) {
    return pick("MAINT", "MAINT") + (no_respond ? "*" : "");
  }
  if ((state & (kFlagRebootRequested | kFlagRebootIssued)) && base != kStateAllocated &&
      base != kStateMixed) {
    if (state & kFlagRebootIssued) {
      return pick("REBOOT^", "BOOT^");
    }
    return pick("REBOOT", "BOOT") + (no_respond ? "*" : "");
  }
  if (state & kFlagDrain) {
    return (Draining(state) ? pick("DRAINING", "DRNG") : pick("DRAINED", "DRAIN")) + suffix;
  }
  if (state & kFlagFail) {
    const bool failing = completing || base == kStateAllocated;
    return (failing ? pick("FAILING", "FAILG") : pick("FAIL", "FAIL")) + (no_respond ? "*" : "");
  }
  switch (base) {
    case kStateDown:
      return pick("DOWN", "DOWN") + suffix;
    case kStateAllocated:
      if (suffix.empty() && completing) {
        return pick("ALLOCATED+", "ALLOC+");
      }
      return pick("ALLOCATED", "ALLOC") + suffix;
    default:
      break;
  }
  if (completing) {
    return pick("COMPLETING", "COMP") + suffix;
  }
  switch (base) {
    case kStateIdle:
      if (!suffix.empty()) return pick("IDLE", "IDLE") + suffix;
      if (state & kFlagNet) return pick("PERFCTRS", "NPC");
      if (state & kFlagReserved) return pick("RESERVED", "RESV");
      if (state & kFlagPlanned) return pick("PLANNED", "PLND");
      return "IDLE";
    case kStateMixed:
      if (suffix.empty() && (state & kFlagPlanned)) return pick("MIXED-", "MIX-");
      return pick("MIXED", "MIX") + suffix;
    case kStateFuture:
      return pick("FUTURE", "FUTR") + suffix;
    case kStateUnknown:
      return pick("UNKNOWN", "UNK") + (no_respond ? "*" : "");
    default:
      return "?";
  }
}

std::string NodeStateComplete(uint32_t state) {
  static constexpr std::pair<uint32_t, const char*> kFlags[] = {
      {kFlagNet, "perfctrs"},
      {kFlagReserved, "reserved"},
      {kFlagCloud, "cloud"},
      {kFlagDrain, "drain"},
      {kFlagCompleting, "completing"},
      {kFlagNoRespond, "not_responding"},
      {kFlagPoweredDown, "powered_down"},
      {kFlagFail, "fail"},
      {kFlagPoweringUp, "powering_up"},
      {kFlagMaint, "maintenance"},
      {kFlagRebootRequested, "reboot_requested"},
      {kFlagPoweringDown, "powering_down"},
      {kFlagRebootIssued, "reboot_issued"},
      {kFlagPlanned, "planned"},
      {kFlagInvalidReg, "invalid_reg"},
      {kFlagPowerDown, "power_down"},
  };
  std::string out;
  switch (state & kStateBase) {
    case kStateDown:
      out = "down";
      break;
    case kStateIdle:
      out = "idle";
      break;
    case kStateAllocated:
      out = "allocated";
      break;
    case kStateMixed:
      out = "mixed";
      break;
    case kStateFuture:
      out = "future";
      break;
    default:
      out = "unknown";
      break;
  }
  for (const auto& [bit, name] : kFlags) {
    if (state & bit) {
      absl::StrAppend(&out, "+", name);
    }
  }
  return out;
}

absl::StatusOr<StateFilter> ParseStateFilter(absl::string_view text) {
  StateFilter filter;
  if (absl::EqualsIgnoreCase(text, "all")) {
    // _build_all_states_list: every base, DRAIN and COMPLETING.
    for (const NamedState& s : kBaseNames) {
      filter.ids.push_back(s.id);
    }
    filter.ids.push_back(kFlagDrain);
    filter.ids.push_back(kFlagCompleting);
    return filter;
  }
  filter.require_all = absl::StrContains(text, '&');
  for (absl::string_view item : absl::StrSplit(text, absl::ByAnyChar(",&"), absl::SkipEmpty())) {
    std::optional<uint32_t> id = StateId(item);
    if (!id.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Bad state string: \"", item, "\"\nvalid states: ", kValidStates));
    }
    filter.ids.push_back(*id);
  }
  return filter;
}

bool StateFilterMatches(const StateFilter& filter, uint32_t state, bool allocated) {
  if (filter.require_all) {
    for (uint32_t id : filter.ids) {
      if (!MatchesOne(id, state, allocated)) {
        return false;
      }
    }
    return !filter.ids.empty();
  }
  for (uint32_t id : filter.ids) {
    if (MatchesOne(id, state, allocated)) {
      return true;
    }
  }
  return false;
}

}  // namespace canopy::ctl::sinfo
