#include "ctl/output/text_table.h"

#include <algorithm>

namespace canopy::ctl::output {

std::string TextTable::Render() const {
  std::string text;
  std::vector<size_t> width(header_.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) {
      width[i] = std::max(width[i], row[i].size());
    }
  };
  measure(header_);
  for (const auto& row : rows_) {
    measure(row);
  }
  auto print = [&](const std::vector<std::string>& row) {
    std::string line;
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) {
        line.append(width[i] - row[i].size() + 2, ' ');
      }
    }
    text += line + "\n";
  };
  print(header_);
  for (const auto& row : rows_) {
    print(row);
  }
  return text;
}

}  // namespace canopy::ctl::output
