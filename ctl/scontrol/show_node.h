// `scontrol show node`'s record, in Slurm 22.05's layout (slurm_sprint_node_table; the reference
// is "scontrol show node gpu001" and "scontrol -o show node gpu064" in
// tests/data/slurm-reference/cli-outputs-22.05.txt). Pure: the node and the time zone come
// in. Thread-safe.
//
// Values Canopy does not know are printed as Slurm prints them when they are unset, never
// invented: Arch= and the OS= line are left out (as for a node whose slurmd never reported
// them), CPULoad=N/A, FreeMem=N/A, BootTime=None (the machine's boot; canopy-agent's start is
// SlurmdStartTime), LastBusyTime=Unknown, TmpDisk=0, Owner=N/A, MCS_label=N/A, and the energy
// lines of a cluster without energy plugins (CapWatts=n/a, CurrentWatts=0 AveWatts=0,
// ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s). NodeAddr and NodeHostName are the
// node's name (Canopy has no separate address); Version= is canopy-agent's version, left out
// until the agent has registered. CfgTRES/AllocTRES list cpu, mem and billing (= CPUs), as a
// cluster that does not track gres/gpu in AccountingStorageTRES does.
#pragma once

#include <string>

#include "absl/time/time.h"
#include "canopy/v1/types.pb.h"

namespace canopy::ctl::scontrol {

// Slurm's node_state_string_complete: the base state ("IDLE", "MIXED", "ALLOCATED", "DOWN",
// "UNKNOWN") followed by its flags in Slurm's order ("+DRAIN", "+NOT_RESPONDING").
std::string NodeStateText(const canopy::v1::Node& node);

// One node's record, ending as Slurm ends it: "\n\n" on several lines, "\n" with `one_liner`.
std::string RenderNode(const canopy::v1::Node& node, absl::TimeZone tz, bool one_liner);

}  // namespace canopy::ctl::scontrol
