// sacctmgr's QOS values (qos_values.h).
#include "ctl/sacctmgr/qos_values.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace canopy::ctl::sacctmgr {

namespace {

// "mem=1024M" -> "mem=1G" (convert_num_unit2 with CONVERT_NUM_UNIT_EXACT: divide by 1024 while
// nothing is lost); anything else as it is.
std::string TresItemText(absl::string_view item) {
  absl::string_view count = item;
  int64_t mib = 0;
  if (!absl::ConsumePrefix(&count, "mem=") || !absl::ConsumeSuffix(&count, "M") ||
      !absl::SimpleAtoi(count, &mib) || mib <= 0) {
    return std::string(item);
  }
  static constexpr absl::string_view kUnits = "MGTPE";
  size_t unit = 0;
  while (mib % 1024 == 0 && unit + 1 < kUnits.size()) {
    mib /= 1024;
    ++unit;
  }
  return absl::StrCat("mem=", mib, kUnits.substr(unit, 1));
}

}  // namespace

std::string TresText(const std::string& tres) {
  std::vector<std::string> items;
  for (absl::string_view item : absl::StrSplit(tres, ',', absl::SkipEmpty())) {
    items.push_back(TresItemText(item));
  }
  return absl::StrJoin(items, ",");
}

std::string TimeText(int64_t seconds) {
  const int64_t days = seconds / 86400;
  const int64_t hours = seconds / 3600 % 24;
  const int64_t minutes = seconds / 60 % 60;
  const int64_t secs = seconds % 60;
  if (days > 0) {
    return absl::StrFormat("%d-%02d:%02d:%02d", days, hours, minutes, secs);
  }
  return absl::StrFormat("%02d:%02d:%02d", hours, minutes, secs);
}

std::string PreemptModeText(const canopy::v1::Qos& qos) {
  return qos.preempt_mode().empty() ? "cluster" : absl::AsciiStrToLower(qos.preempt_mode());
}

}  // namespace canopy::ctl::sacctmgr
