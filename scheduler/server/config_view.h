// The configuration canopyd runs with, as `scontrol show config` lists it: Slurm's key names
// with values in scontrol's words ("300 sec", "sched/backfill", "7-00:00:00"). Only keys
// Canopy reads or decides are listed; a key Slurm has and Canopy does not use is left out
// rather than shown with a value Canopy does not honour. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "common/config/cluster_config.h"

namespace canopy::server {

struct ConfigFacts {
  absl::Time boot_time = absl::InfinitePast();  // when canopyd started (BOOT_TIME)
  uint32_t next_job_id = 1;                     // NEXT_JOB_ID
  std::string version;                          // SLURM_VERSION (Canopy's version)
};

// (key, value) pairs in Slurm's order of `scontrol show config`.
std::vector<std::pair<std::string, std::string>> ConfigEntries(const config::ClusterConfig& config,
                                                               const ConfigFacts& facts);

}  // namespace canopy::server
