// Helpers shared by the fuzz targets: turning libFuzzer's bytes into the text a parser reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/string_view.h"

namespace canopy::fuzz {

// Abseil's string_view (most parsers take it; in Debian's Abseil it is not std::string_view).
inline absl::string_view AsText(const uint8_t* data, size_t size) {
  return absl::string_view(reinterpret_cast<const char*>(data), size);
}
inline std::string_view AsStdText(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

// Splits the input at NUL bytes: one argument each, as a command line reaches main().
inline std::vector<std::string> SplitArguments(absl::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = text.find('\0', start);
    if (end == absl::string_view::npos) {
      out.emplace_back(text.substr(start));
      break;
    }
    out.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// The first byte picks one of `choices` entry points; the rest is that entry point's input.
// Returns false for an empty input.
inline bool TakeSelector(absl::string_view& text, size_t choices, size_t& selected) {
  if (text.empty() || choices == 0) {
    return false;
  }
  selected = static_cast<unsigned char>(text.front()) % choices;
  text.remove_prefix(1);
  return true;
}

}  // namespace canopy::fuzz
