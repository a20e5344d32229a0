// TextTable: left-aligned columns separated by two spaces, for canopyctl's own output (the Slurm
// front ends print Slurm's exact formats instead). Thread-compatible.
#pragma once

#include <string>
#include <vector>

namespace canopy::ctl::output {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void AddRow(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  // The header and rows, one line each.
  std::string Render() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace canopy::ctl::output
