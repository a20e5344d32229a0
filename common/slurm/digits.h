// Decimal digits as Slurm's parsers read them: ASCII '0'-'9' only, whatever the locale.
#pragma once

#include "absl/strings/string_view.h"

namespace canopy::slurm {

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Whether `s` is one or more digits.
inline bool AllDigits(absl::string_view s) {
  for (char c : s) {
    if (!IsDigit(c)) {
      return false;
    }
  }
  return !s.empty();
}

}  // namespace canopy::slurm
