// Reconfigure: `scontrol reconfigure` and SIGHUP. canopyd re-reads the file it started with, and
// only when the new configuration loads, builds a topology and keeps every job it holds does
// canopyd restart itself on it (server_runner.cc: a clean stop, then exec of the same binary,
// which restores every job from the database as after any restart). A bad file changes nothing.
//
// Restarting instead of editing the live state keeps one path for "configuration at start-up"
// (the one every test exercises) and is what Slurm itself does since 23.11. Reads the file; no
// other side effects; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config/cluster_config.h"
#include "scheduler/server/snapshot.h"

namespace canopy::server {

struct ReconfigurePlan {
  config::ClusterConfig config;  // the new configuration, as loaded
  // What changes, one line each, for the log and scontrol; empty when nothing did.
  std::vector<std::string> changes;
};

// Loads `running.path` again (with `state_dir_override`, canopyd's --state_dir, applied as at
// start-up) and checks it against what the controller holds now:
//  - InvalidArgument with the loader's message when the file or its topology is bad;
//  - FailedPrecondition when the state directory moved (restart canopyd to move it), when a node
//    that runs or is allocated to a job is gone, or when a partition that holds live jobs is
//    gone, naming the jobs and what to do first; and for anything else the restart would cancel
//    a job for (a node now smaller than its allocation, ...): every job is restored into a
//    scratch lifecycle on the new configuration, as the restart will restore it.
absl::StatusOr<ReconfigurePlan> PrepareReconfigure(const config::ClusterConfig& running,
                                                   const std::string& state_dir_override,
                                                   const ClusterSnapshot& snapshot);

// The differences between two configurations that an operator would want confirmed: nodes and
// partitions added or removed, partitions whose nodes or limits changed, and every
// `scontrol show config` value that changed ("MinJobAge: 300 sec -> 60 sec").
std::vector<std::string> DescribeConfigChanges(const config::ClusterConfig& before,
                                               const config::ClusterConfig& after);

}  // namespace canopy::server
