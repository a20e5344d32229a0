// Slurm's print_fields (src/common/print_fields.c): the tables sacctmgr and sshare print, as
// text columns ("%*.*s " per field, a dashed line under the header) or '|'-separated with -p
// (a '|' after every field) and -P (none after the last). Renderers build rows of FieldCell and
// get Slurm's bytes back. Pure; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace canopy::ctl::output {

enum class FieldsMode {
  kTable,      // columns, each followed by one space (also the last)
  kParsable,   // -p / --parsable: "a|b|"
  kParsable2,  // -P / --parsable2: "a|b"
};

// One column: its header and Slurm's field->len (> 0 right-aligned, < 0 left-aligned).
struct FieldColumn {
  std::string header;
  int width = 10;
};

// One value, printed the way Slurm's print routine for its type prints it.
class FieldCell {
 public:
  // NULL, NO_VAL or INFINITE: blank (spaces in a table, nothing between the bars).
  static FieldCell Blank() { return FieldCell(Kind::kBlank, "", 0, 0); }
  // print_fields_str: a value longer than the column is cut and ends in '+'.
  static FieldCell Text(std::string text) { return FieldCell(Kind::kText, std::move(text), 0, 0); }
  // print_fields_uint*: never cut.
  static FieldCell Number(uint64_t n) { return FieldCell(Kind::kNumber, "", n, 0); }
  // print_fields_time and print_fields_time_from_secs ("01:00:00"): padded, never cut.
  static FieldCell Whole(std::string text) {
    return FieldCell(Kind::kWhole, std::move(text), 0, 0);
  }
  // print_fields_double: "%f" ("inf" for infinity); in a table "%*e" when "%*f" overflows.
  static FieldCell Double(double d) { return FieldCell(Kind::kDouble, "", 0, d); }

  // The cell's text in a column of `width` (Slurm's field->len), without the separator.
  std::string Format(int width, FieldsMode mode) const;

 private:
  enum class Kind { kBlank, kText, kWhole, kNumber, kDouble };
  FieldCell(Kind kind, std::string text, uint64_t number, double real)
      : kind_(kind), text_(std::move(text)), number_(number), real_(real) {}

  Kind kind_;
  std::string text_;
  uint64_t number_;
  double real_;
};

class FieldsPrinter {
 public:
  FieldsPrinter(std::vector<FieldColumn> columns, FieldsMode mode, bool header)
      : columns_(std::move(columns)), mode_(mode), header_(header) {}

  // The header line (and in a table the dashed line), or "" when headers are off.
  std::string Header() const;
  // One row; `cells` has one cell per column (missing ones are blank).
  std::string Row(const std::vector<FieldCell>& cells) const;

 private:
  std::vector<FieldColumn> columns_;
  FieldsMode mode_;
  bool header_;
};

}  // namespace canopy::ctl::output
