#include "agent/runtime/helper_reports.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace canopy::agent::runtime {

std::vector<HelperReport> HelperReportReader::Feed(absl::string_view bytes) {
  partial_.append(bytes.data(), bytes.size());
  std::vector<HelperReport> reports;
  size_t start = 0;
  for (size_t end; (end = partial_.find('\n', start)) != std::string::npos; start = end + 1) {
    const std::vector<absl::string_view> words =
        absl::StrSplit(absl::string_view(partial_).substr(start, end - start), ' ');
    HelperReport report;
    if (words.size() != 3 || !absl::SimpleAtoi(words[1], &report.task) ||
        !absl::SimpleAtoi(words[2], &report.value)) {
      continue;
    }
    if (words[0] == "pid") {
      report.kind = HelperReport::Kind::kPid;
    } else if (words[0] == "exit") {
      report.kind = HelperReport::Kind::kExit;
    } else if (words[0] == "fault") {
      report.kind = HelperReport::Kind::kNodeFault;
    } else {
      continue;
    }
    reports.push_back(report);
  }
  partial_.erase(0, start);
  return reports;
}

}  // namespace canopy::agent::runtime
