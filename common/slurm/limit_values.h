// The values of Slurm's limit and preemption settings, as Slurm 22.05 documents them
// (sacctmgr(1) "QOS" and "GENERAL SPECIFICATIONS FOR ASSOCIATION BASED ENTITIES", slurm.conf(5)
// PreemptType and PreemptMode): TRES limits such as `gres/gpu=64,cpu=512,node=8,mem=1T`, the
// preemption type and modes. sacctmgr, the configuration loaders and canopyd read them through
// these parsers, so every front door accepts and refuses the same text. Pure; thread-safe.
//
// Errors are InvalidArgument saying what was expected, without the field's name (callers add it).
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace canopy::slurm {

// A limit per TRES; -1 = none (Slurm writes "-1" to clear one, and prints nothing for it).
struct TresLimits {
  int64_t gpus = -1;     // gres/gpu (any type)
  int64_t cpus = -1;     // cpu
  int64_t nodes = -1;    // node
  int64_t mem_mib = -1;  // mem (a suffix K, M, G, T; MiB without one)

  bool empty() const { return gpus < 0 && cpus < 0 && nodes < 0 && mem_mib < 0; }
  friend bool operator==(const TresLimits&, const TresLimits&) = default;
};

// "gres/gpu=64,cpu=512": items TRES=COUNT with TRES one of cpu, mem, node, gres/gpu (any case;
// gres/gpu:TYPE is refused: Canopy limits GPUs of every type together). Each item replaces that
// limit of `base` (as `sacctmgr modify ... set MaxTRESPerUser=` does), COUNT -1 clears it.
absl::StatusOr<TresLimits> ParseTresLimits(absl::string_view text, const TresLimits& base = {});
// Back in Slurm's order ("cpu=512,mem=1024M,node=8,gres/gpu=64"); "" when there is none.
std::string FormatTresLimits(const TresLimits& limits);

// PreemptType: who may preempt whom.
enum class PreemptType {
  kNone,           // preempt/none (the default)
  kQos,            // preempt/qos: a job's QOS lists the QOS it may preempt (Preempt=)
  kPartitionPrio,  // preempt/partition_prio: a higher PriorityTier partition preempts lower ones
};
absl::StatusOr<PreemptType> ParsePreemptType(absl::string_view text);
absl::string_view PreemptTypeName(PreemptType type);

// PreemptMode: what happens to a victim. Slurm's GANG and SUSPEND need suspending jobs, which
// Canopy does not do, and are refused.
enum class PreemptMode {
  kCluster,  // unset (a QOS or partition): the cluster's PreemptMode applies
  kOff,      // never preempted
  kCancel,   // cancelled (state PREEMPTED)
  kRequeue,  // requeued (the default where preemption is on and a job may be requeued)
};
absl::StatusOr<PreemptMode> ParsePreemptMode(absl::string_view text);
absl::string_view PreemptModeName(PreemptMode mode);  // "OFF", "CANCEL", "REQUEUE", "" (cluster)

}  // namespace canopy::slurm
