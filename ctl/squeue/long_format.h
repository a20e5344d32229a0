// squeue's -O/--Format: comma-separated field names (case-insensitive), each optionally
// followed by ":[.]SIZE[SUFFIX]" ("JobID:10", "qos:.8", "Name:12|"): SIZE is the column width
// (default 20), '.' right-aligns, SUFFIX is printed after the field. Each name stands for one
// -o letter, so the same renderer prints both forms. Pure; thread-safe.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/slurm/format_spec.h"

namespace canopy::ctl::squeue {

// The fields as format items (a field, then its suffix as literal text). InvalidArgument
// "error: Invalid job format specification: NAME" for a name Canopy does not serve.
absl::StatusOr<std::vector<slurm::FormatItem>> ParseLongFormat(absl::string_view format);

}  // namespace canopy::ctl::squeue
