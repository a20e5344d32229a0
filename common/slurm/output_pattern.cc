#include "common/slurm/output_pattern.h"

#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"

namespace canopy::slurm {
namespace {

// Slurm's NO_VAL, which %a prints for a job that is not an array task.
constexpr uint32_t kNoVal = 0xfffffffe;

void AppendNumber(std::string& out, uint64_t value, int width) {
  absl::StrAppend(&out, absl::StrFormat("%0*d", width, value));
}

}  // namespace

std::string ExpandOutputPattern(absl::string_view pattern, const OutputPatternContext& context) {
  const bool is_array = context.array_task_id.has_value();
  if (pattern.empty()) {
    pattern = is_array ? "slurm-%A_%a.out" : "slurm-%j.out";
  }
  if (absl::StrContains(pattern, '\\')) {
    return absl::StrReplaceAll(pattern, {{"\\", ""}});
  }
  std::string out;
  out.reserve(pattern.size() + 16);
  size_t i = 0;
  while (i < pattern.size()) {
    const char c = pattern[i];
    if (c != '%') {
      out.push_back(c);
      ++i;
      continue;
    }
    // Parse "%[digits]X".
    size_t j = i + 1;
    int width = 0;
    while (j < pattern.size() && absl::ascii_isdigit(static_cast<unsigned char>(pattern[j]))) {
      if (width < 1000) {
        width = width * 10 + (pattern[j] - '0');
      }
      ++j;
    }
    if (width > kMaxOutputPatternWidth) {
      width = kMaxOutputPatternWidth;
    }
    if (j >= pattern.size()) {
      absl::StrAppend(&out, pattern.substr(i));
      break;
    }
    switch (pattern[j]) {
      case '%':
        out.push_back('%');
        break;
      case 'j':
        AppendNumber(out, context.job_id, width);
        break;
      case 'J':
        AppendNumber(out, context.job_id, width);
        if (context.step_id.has_value()) {
          absl::StrAppend(&out, ".", *context.step_id);
        }
        break;
      case 's':
        if (context.step_id.has_value()) {
          AppendNumber(out, *context.step_id, width);
        } else {
          out.append("batch");
        }
        break;
      case 'A':
        AppendNumber(out, context.array_job_id.value_or(context.job_id), width);
        break;
      case 'a':
        AppendNumber(out, context.array_task_id.value_or(kNoVal), width);
        break;
      case 'n':
        AppendNumber(out, context.node_index, width);
        break;
      case 't':
        AppendNumber(out, context.task_id, width);
        break;
      case 'x':
        out.append(context.job_name);
        break;
      case 'u':
        out.append(context.user_name);
        break;
      case 'N':
        out.append(context.node_name);
        break;
      default:
        // Unknown symbol: copied as written, digits included.
        absl::StrAppend(&out, pattern.substr(i, j + 1 - i));
        break;
    }
    i = j + 1;
  }
  return out;
}

}  // namespace canopy::slurm
