// squeue -O (long_format.h).
#include "ctl/squeue/long_format.h"

#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace canopy::ctl::squeue {
namespace {

struct LongField {
  const char* name;
  char letter;  // the -o field it prints
};

// Slurm 22.05's -O names (squeue/opts.c) for the fields the renderer has.
constexpr LongField kFields[] = {
    {"Account", 'a'},      {"EndTime", 'e'},       {"JobArrayId", 'i'}, {"JobId", 'A'},
    {"Name", 'j'},         {"NodeList", 'N'},      {"NumCPUs", 'C'},    {"NumNodes", 'D'},
    {"Partition", 'P'},    {"PriorityLong", 'Q'},  {"QOS", 'q'},        {"Reason", 'r'},
    {"ReasonList", 'R'},   {"SchedNodes", 'Y'},    {"StartTime", 'S'},  {"State", 'T'},
    {"StateCompact", 't'}, {"SubmitTime", 'V'},    {"TimeLeft", 'L'},   {"TimeLimit", 'l'},
    {"TimeUsed", 'M'},     {"tres-per-node", 'b'}, {"UserName", 'u'},   {"WorkDir", 'Z'},
};

}  // namespace

absl::StatusOr<std::vector<slurm::FormatItem>> ParseLongFormat(absl::string_view format) {
  std::vector<slurm::FormatItem> items;
  for (absl::string_view token : absl::StrSplit(format, ',', absl::SkipEmpty())) {
    slurm::FormatItem item;
    item.width = 20;
    std::string suffix;
    absl::string_view name = token;
    if (const size_t colon = token.find(':'); colon != absl::string_view::npos) {
      name = token.substr(0, colon);
      // strtol after the optional '.': the digits are the width, the rest is the suffix.
      std::string spec(token.substr(colon + 1));
      size_t at = 0;
      if (!spec.empty() && spec[0] == '.') {
        item.right = true;
        at = 1;
      }
      char* end = nullptr;
      item.width = static_cast<int>(std::strtol(spec.c_str() + at, &end, 10));
      suffix = end;
    }
    for (const LongField& f : kFields) {
      if (absl::EqualsIgnoreCase(name, f.name)) {
        item.field = f.letter;
        break;
      }
    }
    if (item.field == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("error: Invalid job format specification: ", name));
    }
    items.push_back(item);
    if (!suffix.empty()) {
      slurm::FormatItem literal;
      literal.literal = suffix;
      items.push_back(std::move(literal));
    }
  }
  return items;
}

}  // namespace canopy::ctl::squeue
