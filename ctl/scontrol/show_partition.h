// `scontrol show partition`'s record, in Slurm 22.05's layout (slurm_sprint_partition_info; the
// reference is "scontrol show partition" in tests/data/slurm-reference/cli-outputs-22.05.txt).
// Pure: the partition, its member nodes and the cluster's PreemptMode come in. Thread-safe.
//
// TotalCPUs, TotalNodes and TRES= (cpu, mem, node, billing) are summed over the member nodes.
// billing is the CPU count unless the partition has TRESBillingWeights, which are then applied
// to cpu, mem (per GB/TB/... when the weight carries a unit, else per MB), node and gres/gpu
// and summed, as Slurm does without PriorityFlags=MAX_TRES. Settings Canopy does not have are
// printed as Slurm prints them unset (AllowGroups=ALL, AllowQos=ALL, AllocNodes=ALL, QoS=N/A,
// MinNodes=0, OverSubscribe=NO, OverTimeLimit=NONE, JobDefaults=(null), DefMemPerNode=UNLIMITED,
// ...).
#pragma once

#include <string>
#include <vector>

#include "canopy/v1/types.pb.h"

namespace canopy::ctl::scontrol {

// `nodes`: the partition's member nodes (others are ignored). `cluster_preempt_mode`: what
// PreemptMode= shows when the partition sets none ("OFF", "REQUEUE", ...).
std::string RenderPartition(const canopy::v1::Partition& partition,
                            const std::vector<canopy::v1::Node>& nodes,
                            const std::string& cluster_preempt_mode, bool one_liner);

}  // namespace canopy::ctl::scontrol
