#include "ctl/output/number_ranges.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace canopy::ctl::output {

std::string NumberRanges(std::vector<int64_t> numbers) {
  std::sort(numbers.begin(), numbers.end());
  std::vector<std::string> ranges;
  for (size_t i = 0; i < numbers.size();) {
    size_t j = i;
    while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) {
      ++j;
    }
    ranges.push_back(j == i ? absl::StrCat(numbers[i]) : absl::StrCat(numbers[i], "-", numbers[j]));
    i = j + 1;
  }
  return absl::StrJoin(ranges, ",");
}

std::string NumberRangesOfList(absl::string_view csv) {
  std::vector<int64_t> numbers;
  for (absl::string_view item : absl::StrSplit(csv, ',', absl::SkipEmpty())) {
    int64_t n = 0;
    if (absl::SimpleAtoi(item, &n)) {
      numbers.push_back(n);
    }
  }
  return NumberRanges(std::move(numbers));
}

}  // namespace canopy::ctl::output
