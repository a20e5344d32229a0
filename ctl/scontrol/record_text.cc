// Slurm 22.05's value formats for scontrol's records (record_text.h).
#include "ctl/scontrol/record_text.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace canopy::ctl::scontrol {

std::string SlurmClock(absl::Duration d) {
  if (d == absl::InfiniteDuration()) {
    return "UNLIMITED";
  }
  const int64_t total = std::max<int64_t>(0, absl::ToInt64Seconds(d));
  const int64_t days = total / 86400;
  const std::string hms =
      absl::StrFormat("%02d:%02d:%02d", (total / 3600) % 24, (total / 60) % 60, total % 60);
  return days > 0 ? absl::StrCat(days, "-", hms) : hms;
}

std::string SlurmMem(int64_t mib) {
  if (mib == 0) {
    return "0";
  }
  // convert_num_unit steps up while the value divides exactly by 1024, from M to P.
  constexpr char kUnits[] = {'M', 'G', 'T', 'P'};
  size_t unit = 0;
  while (unit + 1 < sizeof(kUnits) && mib % 1024 == 0) {
    mib /= 1024;
    ++unit;
  }
  return absl::StrCat(mib, std::string(1, kUnits[unit]));
}

std::string TresList(const std::vector<TresItem>& items) {
  std::vector<std::string> parts;
  for (const TresItem& item : items) {
    if (item.count != 0) {
      parts.push_back(absl::StrCat(item.name, "=", item.value));
    }
  }
  return absl::StrJoin(parts, ",");
}

}  // namespace canopy::ctl::scontrol
