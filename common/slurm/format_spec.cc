#include "common/slurm/format_spec.h"

#include "absl/strings/ascii.h"

namespace canopy::slurm {

std::vector<FormatItem> ParseFormatSpec(absl::string_view format) {
  std::vector<FormatItem> items;
  for (size_t i = 0; i < format.size();) {
    if (format[i] != '%' || i + 1 >= format.size() || format[i + 1] == '%') {
      if (items.empty() || items.back().field != 0) {
        items.emplace_back();
      }
      items.back().literal += format[i];
      i += (format[i] == '%' && i + 1 < format.size()) ? 2 : 1;
      continue;
    }
    FormatItem item;
    ++i;
    if (format[i] == '.') {
      item.right = true;
      ++i;
    } else if (format[i] == '-') {
      ++i;
    }
    if (i < format.size() && format[i] == '#') {
      item.automatic = true;
      ++i;
    }
    while (i < format.size() && absl::ascii_isdigit(format[i])) {
      item.width = item.width * 10 + (format[i++] - '0');
    }
    if (i < format.size()) {
      item.field = format[i++];
    }
    items.push_back(item);
  }
  return items;
}

}  // namespace canopy::slurm
