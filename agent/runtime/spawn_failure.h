// What a child's failure before running its task means (SpawnFailure, from spawn_report.h): the
// message Spawn returns, and whether the node or the request is to blame. Split from spawn.cc,
// which starts the child.
#pragma once

#include <string>

#include "agent/runtime/spawn.h"
#include "agent/runtime/spawn_report.h"

namespace canopy::agent::runtime {

// "chdir to /home/u/missing: No such file or directory": the stage that failed, with the path
// or id it was given and errno's text.
std::string DescribeSpawnFailure(const SpawnRequest& request, const SpawnFailure& e);

// Whether the child failed for a reason of the node (the agent's own set-up: cgroup, session,
// descriptors, credentials, the exec of a file the agent wrote) rather than of the request (the
// work directory, the output files, a script whose interpreter does not exist). Slurm drains a
// node for the first kind only.
bool IsNodeSideFailure(const SpawnRequest& request, const SpawnFailure& e);

}  // namespace canopy::agent::runtime
