// Slurm's output format strings, as sinfo -o and squeue -o take them: literal text and fields
// "%[.|-][#][width]X" ("%.18i" right-aligned in 18 columns, "%-10j" / "%10j" left-aligned, "%#P"
// as wide as the widest value, "%%" a literal percent sign). Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace canopy::slurm {

// One piece of a format: literal text, or a field with its width rules.
struct FormatItem {
  char field = 0;  // 0 = literal
  std::string literal;
  int width = 0;           // 0 = as wide as the value
  bool right = false;      // "%.6D"
  bool automatic = false;  // "%#P": as wide as the widest value (or header)
};

// Never fails: a trailing lone "%" is literal text, as in Slurm.
std::vector<FormatItem> ParseFormatSpec(absl::string_view format);

}  // namespace canopy::slurm
