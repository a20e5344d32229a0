#include "ctl/output/print_fields.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace canopy::ctl::output {
namespace {

// printf("%*.*s", width, |width|, text): cut to the column, padded on the side the sign says.
std::string Pad(const std::string& text, int width) {
  const size_t abs_width = static_cast<size_t>(std::abs(width));
  std::string v = text.substr(0, abs_width);
  const std::string pad(abs_width - v.size(), ' ');
  return width > 0 ? pad + v : v + pad;
}

// print_fields_double in a table: "%*f", or when that is wider than the column Slurm's
// "%*.*e" with the precision shrunk by the overflow of a first "%*.*e" try.
std::string TableDouble(double value, int width) {
  const int abs_width = std::abs(width);
  std::string fixed = absl::StrFormat("%*f", abs_width, value);
  if (static_cast<int>(fixed.size()) <= abs_width) {
    return width > 0 ? fixed : absl::StrFormat("%-*f", abs_width, value);
  }
  int precision = abs_width;
  const int tried = static_cast<int>(absl::StrFormat("%*.*e", precision, precision, value).size());
  if (tried > abs_width) {
    precision -= tried - abs_width;
  }
  return width > 0 ? absl::StrFormat("%*.*e", precision, precision, value)
                   : absl::StrFormat("%-*.*e", precision, precision, value);
}

}  // namespace

std::string FieldCell::Format(int width, FieldsMode mode) const {
  if (mode != FieldsMode::kTable) {
    switch (kind_) {
      case Kind::kBlank:
        return "";
      case Kind::kText:
      case Kind::kWhole:
        return text_;
      case Kind::kNumber:
        return absl::StrCat(number_);
      case Kind::kDouble:
        return absl::StrFormat("%f", real_);
    }
  }
  const size_t abs_width = static_cast<size_t>(std::abs(width));
  switch (kind_) {
    case Kind::kBlank:
      return std::string(abs_width, ' ');
    case Kind::kText: {
      std::string v = text_;
      if (v.size() > abs_width && abs_width > 0) {
        v = v.substr(0, abs_width);
        v.back() = '+';
      }
      return Pad(v, width);
    }
    case Kind::kWhole:
      return width > 0 ? absl::StrFormat("%*s", width, text_)
                       : absl::StrFormat("%-*s", -width, text_);
    case Kind::kNumber:
      return width > 0 ? absl::StrFormat("%*d", width, number_)
                       : absl::StrFormat("%-*d", -width, number_);
    case Kind::kDouble:
      return TableDouble(real_, width);
  }
  return "";
}

std::string FieldsPrinter::Header() const {
  if (!header_) {
    return "";
  }
  std::string line;
  for (size_t i = 0; i < columns_.size(); ++i) {
    const bool last = i + 1 == columns_.size();
    if (mode_ == FieldsMode::kTable) {
      absl::StrAppend(&line, Pad(columns_[i].header, columns_[i].width), " ");
    } else {
      absl::StrAppend(&line, columns_[i].header,
                      last && mode_ == FieldsMode::kParsable2 ? "" : "|");
    }
  }
  line += "\n";
  if (mode_ == FieldsMode::kTable) {
    for (const FieldColumn& c : columns_) {
      absl::StrAppend(&line, std::string(static_cast<size_t>(std::abs(c.width)), '-'), " ");
    }
    line += "\n";
  }
  return line;
}

std::string FieldsPrinter::Row(const std::vector<FieldCell>& cells) const {
  std::string line;
  for (size_t i = 0; i < columns_.size(); ++i) {
    const FieldCell cell = i < cells.size() ? cells[i] : FieldCell::Blank();
    const bool last = i + 1 == columns_.size();
    line += cell.Format(columns_[i].width, mode_);
    if (mode_ == FieldsMode::kTable) {
      line += " ";
    } else if (!(last && mode_ == FieldsMode::kParsable2)) {
      line += "|";
    }
  }
  return line + "\n";
}

}  // namespace canopy::ctl::output
