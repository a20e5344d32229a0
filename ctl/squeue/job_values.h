// Facts about a job that several of squeue's outputs share (fields, filters, sort keys, JSON).
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "canopy/v1/types.pb.h"

namespace canopy::ctl::squeue {

// The effective partition, else the one asked for.
std::string PartitionOf(const canopy::v1::Job& job);
// The user's name, else the uid as a number.
std::string UserNameOf(const canopy::v1::Job& job);
// The allocated nodes as a hostlist ("gpu[001-002]"); "" before the job starts.
std::string NodeListOf(const canopy::v1::Job& job);
// The job started and holds (or held) nodes.
bool HasStarted(const canopy::v1::Job& job);
// A batch job (one with a script): Slurm runs its "batch" step on the first node.
bool IsBatchJob(const canopy::v1::Job& job);
// The time limit in minutes; nullopt-like -1 when unlimited.
int64_t TimeLimitMinutes(const canopy::v1::Job& job);
// When a running job is expected to end: its end time, else start + limit; unset (0) when it
// has no limit or has not started.
int64_t ExpectedEndSeconds(const canopy::v1::Job& job);
// Slurm's unit conversion of a size in MiB ("4G", "1.46G", "512M"), or the MiB with
// `noconvert` ("4096M").
std::string MemoryString(int64_t mib, bool noconvert);
// scontrol's and squeue's dependency text ("afterok:5(unfulfilled)"); "(null)" when none.
std::string DependencyString(const canopy::v1::JobSpec& spec);
// The TRES the job asks for, in Slurm's order ("cpu=2,mem=8G,node=2,billing=2,gres/gpu=16";
// billing is the CPU count, Slurm's default weights).
std::string RequestedTres(const canopy::v1::Job& job);
// A Slurm priority as squeue's %p prints it: divided by 2^32 - 1, 14 decimals.
std::string NormalizedPriority(uint32_t priority);

}  // namespace canopy::ctl::squeue
