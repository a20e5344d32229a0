// Hostlist parsing and expansion, plus the public compression entry points (the ranged printing
// itself is RunList in hostlist_runs.cc). Written to reproduce Slurm 22.05's hostlist.c output
// as `scontrol show hostnames|hostlist|hostlistsorted` print it; see
// docs/compat/scontrol-hostlist.md. Where Slurm silently accepts malformed input ("n[1-2" prints
// "n]") we return InvalidArgument.
#include "common/slurm/hostlist.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/slurm/digits.h"
#include "common/slurm/hostlist_runs.h"

namespace canopy::slurm {
namespace {

using internal::AppendPadded;
using internal::kMaxSignificantDigits;
using internal::RunList;

// Bounds memory as well as host count: 1M hosts of ~60 characters each.
constexpr size_t kMaxExpandedBytes = size_t{64} << 20;
// Long expressions are cut in error messages so a 16k-name list does not flood a log line.
constexpr size_t kMaxQuotedChars = 200;

bool IsSeparator(char c) {
  // Slurm separates on ',', ' ' and '\t'; we also take newlines and other ASCII whitespace so a
  // name never silently ends in "\n" (Slurm prints "n1\n" as a name).
  return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

std::string Quote(absl::string_view expression) {
  if (expression.size() <= kMaxQuotedChars) {
    return absl::StrCat("\"", expression, "\"");
  }
  return absl::StrCat("\"", expression.substr(0, kMaxQuotedChars), "...\" (", expression.size(),
                      " characters)");
}

absl::Status InvalidHostlist(absl::string_view expression, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid hostlist ", Quote(expression), ": ", what));
}

// ---- Expansion ------------------------------------------------------------------------------

// One "N" or "N-M" inside brackets. `width` is the length of N as written, as in Slurm.
struct Range {
  uint64_t lo = 0;
  uint64_t hi = 0;
  size_t width = 0;
};

// A bracket group "[1,3-5]". `values` (the padded numbers) is filled only for groups before the
// last one of an item, and only after the whole expression is sized.
struct Group {
  std::vector<Range> ranges;
  uint64_t count = 0;
  std::vector<std::string> values;
};

// One host item "t0[g0]t1[g1]...t(k-1)[g(k-1)]"; texts has one more entry than groups.
struct Pattern {
  std::vector<absl::string_view> texts;
  std::vector<Group> groups;
  uint64_t count = 1;
  size_t name_bytes = 0;  // length of one name: fixed text plus the widest value of each group
};

absl::StatusOr<uint64_t> ParseNumber(absl::string_view expression, absl::string_view item,
                                     absl::string_view digits) {
  if (!AllDigits(digits)) {
    return InvalidHostlist(
        expression,
        absl::StrCat("range \"", item, "\" is not numeric (expected N or N-M in decimal)"));
  }
  size_t first = digits.find_first_not_of('0');
  absl::string_view significant = first == absl::string_view::npos ? "" : digits.substr(first);
  if (significant.size() > kMaxSignificantDigits) {
    return InvalidHostlist(expression, absl::StrCat("number \"", digits, "\" in range \"", item,
                                                    "\" is too large (at most 18 digits)"));
  }
  uint64_t value = 0;
  for (char c : significant) {
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  return value;
}

// Parses "1,3-5,7" (the text between one pair of brackets) into `group`.
absl::Status ParseGroup(absl::string_view expression, absl::string_view list, Group* group) {
  if (list.empty()) {
    return InvalidHostlist(expression, "empty range \"[]\"");
  }
  size_t start = 0;
  while (true) {
    const size_t comma = list.find(',', start);
    const absl::string_view item = list.substr(
        start, comma == absl::string_view::npos ? absl::string_view::npos : comma - start);
    if (item.empty()) {
      return InvalidHostlist(expression, absl::StrCat("empty range in \"[", list, "]\""));
    }
    const size_t dash = item.find('-');
    const absl::string_view lo_text = item.substr(0, dash);
    const absl::string_view hi_text =
        dash == absl::string_view::npos ? lo_text : item.substr(dash + 1);
    if (dash != absl::string_view::npos && (lo_text.empty() || hi_text.empty())) {
      return InvalidHostlist(expression, absl::StrCat("range \"", item, "\" is missing a bound"));
    }
    absl::StatusOr<uint64_t> lo = ParseNumber(expression, item, lo_text);
    if (!lo.ok()) {
      return lo.status();
    }
    absl::StatusOr<uint64_t> hi = ParseNumber(expression, item, hi_text);
    if (!hi.ok()) {
      return hi.status();
    }
    if (*lo > *hi) {
      return InvalidHostlist(
          expression, absl::StrCat("range \"", item, "\" is reversed (", *lo, " > ", *hi, ")"));
    }
    const uint64_t count = *hi - *lo + 1;
    if (count > kMaxHostsPerRange) {
      return InvalidHostlist(expression, absl::StrCat("range \"", item, "\" has ", count,
                                                      " hosts; Slurm allows at most ",
                                                      kMaxHostsPerRange, " in one range"));
    }
    group->ranges.push_back(Range{*lo, *hi, lo_text.size()});
    group->count += count;
    if (comma == absl::string_view::npos) {
      return absl::OkStatus();
    }
    start = comma + 1;
  }
}

// Parses one host item (no separators outside brackets) into `pattern`.
absl::Status ParsePattern(absl::string_view expression, absl::string_view item, Pattern* pattern) {
  size_t text_start = 0;
  size_t pos = 0;
  while (pos < item.size()) {
    if (item[pos] == ']') {
      return InvalidHostlist(expression, absl::StrCat("unbalanced ']' in \"", item, "\""));
    }
    if (item[pos] != '[') {
      ++pos;
      continue;
    }
    const size_t close = item.find_first_of("[]", pos + 1);
    if (close == absl::string_view::npos) {
      return InvalidHostlist(expression, absl::StrCat("unbalanced '[' in \"", item, "\" (no ']')"));
    }
    if (item[close] == '[') {
      return InvalidHostlist(expression, absl::StrCat("nested '[' in \"", item, "\""));
    }
    pattern->texts.push_back(item.substr(text_start, pos - text_start));
    Group group;
    if (absl::Status s = ParseGroup(expression, item.substr(pos + 1, close - pos - 1), &group);
        !s.ok()) {
      return s;
    }
    pattern->groups.push_back(std::move(group));
    pos = close + 1;
    text_start = pos;
  }
  const absl::string_view tail = item.substr(text_start);
  if (!pattern->groups.empty() && !tail.empty()) {
    return InvalidHostlist(expression,
                           absl::StrCat("text \"", tail, "\" after the last ']' in \"", item,
                                        "\" is not allowed (Slurm 22.05 rejects a suffix there)"));
  }
  pattern->texts.push_back(tail);
  return absl::OkStatus();
}

// Splits on separators outside brackets. Bracket errors are left to ParsePattern, which names
// them; here a stray ']' only closes a bracket we are inside.
std::vector<absl::string_view> SplitItems(absl::string_view expression) {
  std::vector<absl::string_view> items;
  bool in_bracket = false;
  size_t start = 0;
  for (size_t i = 0; i <= expression.size(); ++i) {
    const bool end = i == expression.size();
    if (!end && expression[i] == '[') {
      in_bracket = true;
    } else if (!end && expression[i] == ']') {
      in_bracket = false;
    } else if (end || (!in_bracket && IsSeparator(expression[i]))) {
      if (i > start) {
        items.push_back(expression.substr(start, i - start));
      }
      start = i + 1;
    }
  }
  return items;
}

void FillValues(Group* group) {
  group->values.reserve(group->count);
  for (const Range& r : group->ranges) {
    for (uint64_t v = r.lo;; ++v) {
      std::string s;
      AppendPadded(&s, v, r.width);
      group->values.push_back(std::move(s));
      if (v == r.hi) {
        break;
      }
    }
  }
}

// Calls `emit(prefix)` for every value combination of all groups but the last, in Slurm's
// order, where `prefix` is the name text up to the last '['. Slurm peels the last group off as
// the range and recurses on the prefix from its last '[' backwards, so its loops nest, outermost
// first, as g(k-2), g(k-3), ..., g0; the caller then walks g(k-1) innermost.
template <typename Emit>
void ForEachPrefix(Pattern& pattern, Emit emit) {
  const size_t k = pattern.groups.size();  // >= 1
  for (size_t g = 0; g + 1 < k; ++g) {
    FillValues(&pattern.groups[g]);
  }
  std::vector<size_t> index(k - 1, 0);
  std::string prefix;
  prefix.reserve(pattern.name_bytes);
  while (true) {
    prefix.clear();
    for (size_t g = 0; g + 1 < k; ++g) {
      prefix.append(pattern.texts[g].data(), pattern.texts[g].size());
      prefix.append(pattern.groups[g].values[index[g]]);
    }
    prefix.append(pattern.texts[k - 1].data(), pattern.texts[k - 1].size());
    emit(prefix);
    // Odometer step: g0 is the innermost of these loops, g(k-2) the outermost.
    size_t g = 0;
    while (g + 1 < k && ++index[g] == pattern.groups[g].values.size()) {
      index[g] = 0;
      ++g;
    }
    if (g + 1 >= k) {
      return;
    }
  }
}

void ExpandPattern(Pattern& pattern, std::vector<std::string>* out) {
  if (pattern.groups.empty()) {
    out->emplace_back(pattern.texts[0].data(), pattern.texts[0].size());
    return;
  }
  // Text after the last group is rejected by ParsePattern, so a name is prefix + number. The
  // last group is walked directly rather than through FillValues: it is usually the big one.
  const Group& last = pattern.groups.back();
  ForEachPrefix(pattern, [&](const std::string& prefix) {
    for (const Range& r : last.ranges) {
      for (uint64_t v = r.lo;; ++v) {
        std::string& name = out->emplace_back(prefix);
        AppendPadded(&name, v, r.width);
        if (v == r.hi) {
          break;
        }
      }
    }
  });
}

// Parses and sizes every item of `expression`, enforcing the host and byte caps before anything
// is expanded.
absl::StatusOr<std::vector<Pattern>> ParseExpression(absl::string_view expression,
                                                     uint64_t* total_hosts) {
  std::vector<Pattern> patterns;
  uint64_t total_bytes = 0;
  *total_hosts = 0;
  for (absl::string_view item : SplitItems(expression)) {
    Pattern pattern;
    if (absl::Status s = ParsePattern(expression, item, &pattern); !s.ok()) {
      return s;
    }
    for (absl::string_view t : pattern.texts) {
      pattern.name_bytes += t.size();
    }
    for (const Group& g : pattern.groups) {
      // Checked before multiplying so the product cannot overflow: both factors <= 10^6.
      if (g.count > kMaxExpandedHosts || pattern.count * g.count > kMaxExpandedHosts) {
        return InvalidHostlist(expression,
                               absl::StrCat("expands to more than ", kMaxExpandedHosts, " hosts"));
      }
      pattern.count *= g.count;
      size_t widest = 0;
      for (const Range& r : g.ranges) {
        widest = std::max({widest, r.width, absl::AlphaNum(r.hi).size()});
      }
      pattern.name_bytes += widest;
    }
    *total_hosts += pattern.count;
    total_bytes += pattern.count * pattern.name_bytes;
    if (*total_hosts > kMaxExpandedHosts) {
      return InvalidHostlist(expression,
                             absl::StrCat("expands to more than ", kMaxExpandedHosts, " hosts"));
    }
    if (total_bytes > kMaxExpandedBytes) {
      return InvalidHostlist(
          expression,
          absl::StrCat("expands to more than ", kMaxExpandedBytes >> 20, " MiB of host names"));
    }
    patterns.push_back(std::move(pattern));
  }
  return patterns;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ExpandHostlist(std::string_view expression_in) {
  // Debian's Abseil has its own string_view type; the API speaks std::string_view.
  const absl::string_view expression(expression_in.data(), expression_in.size());
  uint64_t total_hosts = 0;
  absl::StatusOr<std::vector<Pattern>> patterns = ParseExpression(expression, &total_hosts);
  if (!patterns.ok()) {
    return patterns.status();
  }
  std::vector<std::string> hosts;
  hosts.reserve(total_hosts);
  for (Pattern& p : *patterns) {
    ExpandPattern(p, &hosts);
  }
  return hosts;
}

std::string CompressHostlist(const std::vector<std::string>& hosts) {
  RunList runs;
  runs.Reserve(hosts.size());
  for (const std::string& host : hosts) {
    runs.PushName(host);
  }
  return runs.Format();
}

absl::StatusOr<std::string> CompressHostlistExpression(std::string_view expression_in,
                                                       HostlistOrder order) {
  const absl::string_view expression(expression_in.data(), expression_in.size());
  uint64_t total_hosts = 0;
  absl::StatusOr<std::vector<Pattern>> patterns = ParseExpression(expression, &total_hosts);
  if (!patterns.ok()) {
    return patterns.status();
  }
  RunList runs;
  for (Pattern& p : *patterns) {
    if (p.groups.empty()) {
      runs.PushName(p.texts[0]);
      continue;
    }
    // Slurm keeps the text before the last '[' literally (no digit splitting) and pushes the
    // last group's ranges as written.
    const std::vector<Range>& last = p.groups.back().ranges;
    ForEachPrefix(p, [&](const std::string& prefix) {
      for (const Range& r : last) {
        runs.PushRange(prefix, r.lo, r.hi, r.width);
      }
    });
  }
  if (order == HostlistOrder::kSorted) {
    runs.Sort();
  }
  return runs.Format();
}

std::vector<std::string> SortHostlist(const std::vector<std::string>& hosts) {
  // Slurm sorts its ranges, not single names, so the names are joined first.
  RunList runs;
  runs.Reserve(hosts.size());
  for (const std::string& host : hosts) {
    runs.PushName(host);
  }
  runs.Sort();
  return runs.Names();
}

}  // namespace canopy::slurm
