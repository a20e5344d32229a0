// Small start-up helpers shared by canopyd's main: logging, finding the config file, creating
// and locking the state directory. Not used once the daemon runs.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "common/os/unique_fd.h"

namespace canopy::server {

// --config, else $CANOPY_CONFIG, else $SLURM_CONF; FailedPrecondition naming all three if none.
absl::StatusOr<std::string> ResolveConfigPath(const std::string& flag_value);

// Creates `dir` (and parents) if needed, mode 0711 (the database holds every job's script and
// environment; search stays so that users reach the unix socket inside; an existing directory
// keeps its mode), then takes an exclusive lock on dir/canopyd.lock so two controllers never
// share one database. FailedPrecondition if another canopyd holds it.
absl::StatusOr<os::UniqueFd> LockStateDir(const std::string& dir);

}  // namespace canopy::server
