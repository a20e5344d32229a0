#include "ctl/srun/step_output.h"

#include <algorithm>
#include <cstring>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ctl/output/number_ranges.h"

namespace canopy::ctl::srun {

int LabelWidth(int ntasks) {
  int width = 1;
  for (int n = std::max(ntasks - 1, 0); n >= 10; n /= 10) {
    ++width;
  }
  return width;
}

std::string TaskOutputBuffer::Label(int rank) const {
  return label_width_ == 0 ? "" : absl::StrFormat("%*d: ", label_width_, rank);
}

std::string TaskOutputBuffer::Append(int rank, int stream, const std::string& data) {
  std::string& buffer = partial_[{stream, rank}];
  buffer += data;
  std::string out;
  size_t start = 0;
  for (size_t nl = buffer.find('\n'); nl != std::string::npos; nl = buffer.find('\n', start)) {
    absl::StrAppend(&out, Label(rank), absl::string_view(buffer).substr(start, nl + 1 - start));
    start = nl + 1;
  }
  buffer.erase(0, start);
  return out;
}

std::string TaskOutputBuffer::Flush(int stream) {
  std::string out;
  for (auto& [key, buffer] : partial_) {
    if (key.first == stream && !buffer.empty()) {
      absl::StrAppend(&out, Label(key.second), buffer, "\n");
      buffer.clear();
    }
  }
  return out;
}

StepSummary SummarizeStep(const std::vector<TaskEnd>& ends) {
  StepSummary summary;
  // (node, signal, code) -> ranks, in node order of first appearance.
  std::vector<std::tuple<std::string, int, int, std::vector<int>>> groups;
  for (const TaskEnd& e : ends) {
    summary.exit_code =
        std::max(summary.exit_code, e.exit_signal != 0 ? 128 + e.exit_signal : e.exit_code);
    if (e.exit_signal == 0 && e.exit_code == 0) {
      continue;
    }
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) {
      return std::get<0>(g) == e.node && std::get<1>(g) == e.exit_signal &&
             std::get<2>(g) == e.exit_code;
    });
    if (it == groups.end()) {
      groups.emplace_back(e.node, e.exit_signal, e.exit_code, std::vector<int>{});
      it = groups.end() - 1;
    }
    std::get<3>(*it).push_back(e.rank);
  }
  for (auto& [node, signal, code, ranks] : groups) {
    const std::string what =
        signal != 0 ? std::string(strsignal(signal)) : absl::StrCat("Exited with exit code ", code);
    summary.messages.push_back(absl::StrCat(node, ": ", ranks.size() == 1 ? "task " : "tasks ",
                                            output::NumberRanges({ranks.begin(), ranks.end()}),
                                            ": ", what));
  }
  return summary;
}

}  // namespace canopy::ctl::srun
