// Small helpers shared by the slurm.conf and Canopy YAML parsers: number parsing that rejects
// signs and junk, quoting of user text inside error messages, file reading with errno-based
// Status codes, and the de-duplicated list of unused keys.
//
// Internal to canopy_config (namespace `internal`); not part of the library's contract.
// Pure functions are thread-safe; UnusedKeys is thread-compatible.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace canopy::config::internal {

// The largest values the two front doors accept for a count (Slurm's int fields) and a size.
inline constexpr int64_t kIntMax = std::numeric_limits<int>::max();
inline constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// Largest config file we read. A cluster of 100k nodes still fits easily; the limit only keeps a
// mistaken path (a disk image, /dev/zero) from exhausting memory.
inline constexpr int64_t kMaxConfigFileBytes = 64 << 20;

// Parses an unsigned decimal integer: digits only (no sign, no spaces, no "0x"), at most
// `max`. nullopt for anything else, including overflow.
std::optional<int64_t> ParseDecimal(absl::string_view text, int64_t max);

// `value` made safe to print inside an error message and wrapped in `quote` ('\'' for
// slurm.conf, '"' for YAML): control characters and non-ASCII bytes are C-escaped and long
// values are cut, so binary junk in a file still gives a readable one-line message.
std::string Quote(absl::string_view value, char quote);

// Like Quote without the quotes, for names that head a message ("NodeName=gpu[001-016]").
std::string Printable(absl::string_view value);

// Reads a whole file. Errors carry the path and strerror: NotFound (missing), PermissionDenied,
// FailedPrecondition (a directory), InvalidArgument (larger than kMaxConfigFileBytes).
absl::StatusOr<std::string> ReadConfigFile(const std::string& path);

// `name` resolved against the directory that holds `origin` ("conf/slurm.conf" + "topology.conf"
// -> "conf/topology.conf"); an absolute `name` is returned unchanged.
std::string SiblingPath(const std::string& origin, const std::string& name);

// The controller's default unix socket, <state_dir>/canopyd.sock.
std::string DefaultUnixSocket(const std::string& state_dir);

// How often agents report when the file does not say: as Slurm pings its nodes every
// SlurmdTimeout/3, a third of the node timeout, at most every 10 s (and every 10 s when nodes
// never time out), at least every 200 ms (the agents' tick).
absl::Duration DefaultHeartbeat(absl::Duration node_timeout);

// The check both loaders apply to the node timeout and the heartbeat: more than twice the
// heartbeat, so that a node may miss one heartbeat (and be late with the next) before it is
// marked DOWN, or every node would flap. The message ("must be more than twice ...") follows
// the field the caller names.
absl::Status CheckNodeTimeout(absl::Duration node_timeout, absl::Duration heartbeat);

// Collects keys Canopy does not use, each once (compared case-insensitively, first spelling
// kept), in the order first seen.
class UnusedKeys {
 public:
  void Add(absl::string_view key);
  std::vector<std::string> Take() { return std::move(keys_); }

 private:
  absl::flat_hash_set<std::string> seen_lower_;
  std::vector<std::string> keys_;
};

}  // namespace canopy::config::internal
