// Settings Slurm has no key for (the metrics listen address; later features add theirs) live
// in Canopy's YAML and, for sites configured with slurm.conf, in a `canopy.conf` beside it, so
// slurm.conf stays valid for Slurm's own tools. canopy.conf is YAML holding only these keys;
// one function applies each key for both files, with the same checks.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/config/cluster_config.h"

namespace canopy::config {

// OK for "HOST:PORT" (a name, an IPv4 address or a bracketed IPv6 one, and a port 0-65535;
// 0 = any free port); InvalidArgument "FIELD: expected HOST:PORT ..., got 'VALUE'" otherwise.
absl::Status CheckListenAddress(absl::string_view field, absl::string_view value);

// True when `listen` ("HOST:PORT") is reachable from this machine only: localhost, 127.*, [::1].
bool IsLoopbackListenAddress(absl::string_view listen);

namespace internal {

// Whether `key` is one of the Canopy-only keys.
bool IsCanopyOnlyKey(absl::string_view key);

// Applies a Canopy-only key ("metrics_listen") given as text. False if `key` is not one;
// InvalidArgument "KEY: expected ..." for a bad value.
absl::StatusOr<bool> ApplyCanopyOnlyKey(absl::string_view key, absl::string_view value,
                                        ClusterConfig& config);

// Reads canopy.conf beside `slurm_conf_path` into `config` when it exists (it is optional).
// Errors name canopy.conf, the line and the key; keys it does not know go to unused_keys.
absl::Status ReadCanopyConfBeside(const std::string& slurm_conf_path, ClusterConfig& config);

}  // namespace internal
}  // namespace canopy::config
