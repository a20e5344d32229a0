// Hostlist expansion and compression, written to reproduce Slurm 22.05's hostlist.c output
// (checked against `scontrol show hostnames` / `scontrol show hostlist`; see
// SCONTROL_HOSTLIST_NOTES.md). Where Slurm silently accepts malformed input ("n[1-2" prints
// "n]") we return InvalidArgument instead.
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

namespace canopy::slurm {
namespace {

// Bounds memory as well as host count: 1M hosts of ~60 characters each.
constexpr size_t kMaxExpandedBytes = size_t{64} << 20;
// Values stay below 10^18 so that hi - lo + 1 and width arithmetic cannot overflow uint64.
constexpr size_t kMaxSignificantDigits = 18;
// Long expressions are cut in error messages so a 16k-name list does not flood a log line.
constexpr size_t kMaxQuotedChars = 200;

bool IsSeparator(char c) {
  // Slurm separates on ',', ' ' and '\t'; we also take newlines and other ASCII whitespace so a
  // name never silently ends in "\n" (Slurm prints "n1\n" as a name).
  return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool AllDigits(absl::string_view s) {
  for (char c : s) {
    if (!IsDigit(c)) {
      return false;
    }
  }
  return !s.empty();
}

// Appends `value` zero-padded to `width`, Slurm's "%0*lu".
void AppendPadded(std::string* out, uint64_t value, size_t width) {
  const absl::AlphaNum digits(value);
  if (digits.size() < width) {
    out->append(width - digits.size(), '0');
  }
  out->append(digits.data(), digits.size());
}

std::string Quote(absl::string_view expression) {
  if (expression.size() <= kMaxQuotedChars) {
    return absl::StrCat("\"", expression, "\"");
  }
  return absl::StrCat("\"", expression.substr(0, kMaxQuotedChars), "...\" (", expression.size(),
                      " characters)");
}

absl::Status Invalid(absl::string_view expression, absl::string_view what) {
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
    return Invalid(expression, absl::StrCat("range \"", item,
                                            "\" is not numeric (expected N or N-M in decimal)"));
  }
  size_t first = digits.find_first_not_of('0');
  absl::string_view significant = first == absl::string_view::npos ? "" : digits.substr(first);
  if (significant.size() > kMaxSignificantDigits) {
    return Invalid(expression, absl::StrCat("number \"", digits, "\" in range \"", item,
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
    return Invalid(expression, "empty range \"[]\"");
  }
  size_t start = 0;
  while (true) {
    const size_t comma = list.find(',', start);
    const absl::string_view item = list.substr(
        start, comma == absl::string_view::npos ? absl::string_view::npos : comma - start);
    if (item.empty()) {
      return Invalid(expression, absl::StrCat("empty range in \"[", list, "]\""));
    }
    const size_t dash = item.find('-');
    const absl::string_view lo_text = item.substr(0, dash);
    const absl::string_view hi_text =
        dash == absl::string_view::npos ? lo_text : item.substr(dash + 1);
    if (dash != absl::string_view::npos && (lo_text.empty() || hi_text.empty())) {
      return Invalid(expression, absl::StrCat("range \"", item, "\" is missing a bound"));
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
      return Invalid(expression,
                     absl::StrCat("range \"", item, "\" is reversed (", *lo, " > ", *hi, ")"));
    }
    const uint64_t count = *hi - *lo + 1;
    if (count > kMaxHostsPerRange) {
      return Invalid(expression, absl::StrCat("range \"", item, "\" has ", count,
                                              " hosts; Slurm allows at most ", kMaxHostsPerRange,
                                              " in one range"));
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
      return Invalid(expression, absl::StrCat("unbalanced ']' in \"", item, "\""));
    }
    if (item[pos] != '[') {
      ++pos;
      continue;
    }
    const size_t close = item.find_first_of("[]", pos + 1);
    if (close == absl::string_view::npos) {
      return Invalid(expression, absl::StrCat("unbalanced '[' in \"", item, "\" (no ']')"));
    }
    if (item[close] == '[') {
      return Invalid(expression, absl::StrCat("nested '[' in \"", item, "\""));
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
    return Invalid(expression,
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
        return Invalid(expression,
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
      return Invalid(expression,
                     absl::StrCat("expands to more than ", kMaxExpandedHosts, " hosts"));
    }
    if (total_bytes > kMaxExpandedBytes) {
      return Invalid(expression, absl::StrCat("expands to more than ", kMaxExpandedBytes >> 20,
                                              " MiB of host names"));
    }
    patterns.push_back(std::move(pattern));
  }
  return patterns;
}

// ---- Compression ----------------------------------------------------------------------------

// Zeros "%0*lu" adds to `value` at `width` (Slurm's _zero_padded).
size_t ZeroPadding(uint64_t value, size_t width) {
  const size_t digits = absl::AlphaNum(value).size();
  return width > digits ? width - digits : 0;
}

// Slurm's _width_equiv: two widths are compatible when using either one for both numbers would
// not change the padding of at least one of them; on success the widths are made equal.
bool WidthsCompatible(uint64_t n, size_t* wn, uint64_t m, size_t* wm) {
  if (*wn == *wm) {
    return true;
  }
  const bool n_changes = ZeroPadding(n, *wn) != ZeroPadding(n, *wm);
  const bool m_changes = ZeroPadding(m, *wm) != ZeroPadding(m, *wn);
  if (n_changes && m_changes) {
    return false;
  }
  if (n_changes) {
    *wm = *wn;
  } else {
    *wn = *wm;
  }
  return true;
}

// Character at `i`, or '\0' past the end, so the loops below read like Slurm's C.
char At(absl::string_view s, size_t i) { return i < s.size() ? s[i] : '\0'; }

bool IsSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// Slurm's strnatcmp (Martin Pool's natural order), which orders hostlist prefixes: digit runs
// compare by value ("a2" < "a10"), or digit by digit when either starts with '0'.
int NaturalCompare(absl::string_view a, absl::string_view b) {
  size_t ai = 0;
  size_t bi = 0;
  while (true) {
    while (IsSpace(At(a, ai))) {
      ++ai;
    }
    while (IsSpace(At(b, bi))) {
      ++bi;
    }
    const char ca = At(a, ai);
    const char cb = At(b, bi);
    if (IsDigit(ca) && IsDigit(cb)) {
      int result = 0;
      if (ca == '0' || cb == '0') {  // left-aligned: the first different digit wins
        for (size_t i = 0;; ++i) {
          const char x = At(a, ai + i);
          const char y = At(b, bi + i);
          if (!IsDigit(x) || !IsDigit(y)) {
            result = IsDigit(x) ? 1 : (IsDigit(y) ? -1 : 0);
            break;
          }
          if (x != y) {
            result = x < y ? -1 : 1;
            break;
          }
        }
      } else {  // right-aligned: the longer run wins, else the first different digit
        for (size_t i = 0;; ++i) {
          const char x = At(a, ai + i);
          const char y = At(b, bi + i);
          if (!IsDigit(x) || !IsDigit(y)) {
            result = IsDigit(x) ? 1 : (IsDigit(y) ? -1 : result);
            break;
          }
          if (result == 0 && x != y) {
            result = x < y ? -1 : 1;
          }
        }
      }
      if (result != 0) {
        return result;
      }
    }
    if (ca == '\0' && cb == '\0') {
      return 0;
    }
    if (ca != cb) {
      return ca < cb ? -1 : 1;
    }
    ++ai;
    ++bi;
  }
}

// One host as `show hostlistsorted` orders it (Slurm's hostrange_cmp): prefix in natural
// order, a name without number before numbered ones, then by number when the paddings are
// compatible, else by width.
struct HostKey {
  absl::string_view prefix;
  bool single = false;
  uint64_t value = 0;
  size_t width = 0;
};

bool KeyLess(const HostKey& a, const HostKey& b) {
  if (const int c = NaturalCompare(a.prefix, b.prefix); c != 0) {
    return c < 0;
  }
  if (a.single != b.single) {
    return a.single;
  }
  size_t wa = a.width;
  size_t wb = b.width;
  return WidthsCompatible(a.value, &wa, b.value, &wb) ? a.value < b.value : a.width < b.width;
}

// Splits a name into prefix and numeric suffix (Slurm's hostname_create). A suffix of more than
// 18 significant digits, which Slurm's strtoul would saturate, makes the name opaque.
HostKey SplitName(absl::string_view name) {
  size_t digits_start = name.size();
  while (digits_start > 0 && IsDigit(name[digits_start - 1])) {
    --digits_start;
  }
  const absl::string_view digits = name.substr(digits_start);
  const size_t first = digits.find_first_not_of('0');
  const size_t significant = first == absl::string_view::npos ? 0 : digits.size() - first;
  if (digits.empty() || significant > kMaxSignificantDigits) {
    return HostKey{name, true, 0, 0};
  }
  uint64_t value = 0;
  for (char c : digits) {
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  return HostKey{name.substr(0, digits_start), false, value, digits.size()};
}

// Slurm's hostlist: a sequence of runs "prefix<lo..hi>" (hostrange), built by appending only.
class RunList {
 public:
  // A name: its trailing digits are the number (Slurm's hostlist_push_host).
  void PushName(absl::string_view name) {
    const HostKey key = SplitName(name);
    if (key.single) {
      runs_.push_back(Run{std::string(name.data(), name.size()), true, 0, 0, 0});
      return;
    }
    PushRange(key.prefix, Range{key.value, key.value, key.width});
  }

  // A range with a literal prefix (Slurm's hostlist_push_range): it extends the last run only
  // when it continues it with the same prefix and a compatible width; nothing is sorted or
  // merged further back.
  void PushRange(absl::string_view prefix, Range range) {
    if (!runs_.empty()) {
      Run& tail = runs_.back();
      if (!tail.single && tail.prefix == prefix && tail.hi + 1 == range.lo &&
          WidthsCompatible(tail.lo, &tail.width, range.lo, &range.width)) {
        tail.hi = range.hi;
        return;
      }
    }
    runs_.push_back(
        Run{std::string(prefix.data(), prefix.size()), false, range.lo, range.hi, range.width});
  }

  // Slurm's hostlist_sort: orders every host by KeyLess (stably, as glibc's merge-sort qsort
  // does) and joins the result again, so duplicates stay ("n[1,1-3]").
  void Sort() {
    struct Unit {
      size_t run;
      uint64_t value;
    };
    std::vector<Unit> units;
    for (size_t i = 0; i < runs_.size(); ++i) {
      for (uint64_t v = runs_[i].lo;; ++v) {
        units.push_back(Unit{i, v});
        if (v >= runs_[i].hi) {
          break;
        }
      }
    }
    const auto key = [this](const Unit& u) {
      const Run& r = runs_[u.run];
      return HostKey{r.prefix, r.single, u.value, r.width};
    };
    std::stable_sort(units.begin(), units.end(),
                     [&](const Unit& a, const Unit& b) { return KeyLess(key(a), key(b)); });
    RunList sorted;
    for (const Unit& u : units) {
      const Run& r = runs_[u.run];
      if (r.single) {
        sorted.runs_.push_back(r);
      } else {
        sorted.PushRange(r.prefix, Range{u.value, u.value, r.width});
      }
    }
    runs_ = std::move(sorted.runs_);
  }

  // Slurm's hostlist_ranged_string: consecutive runs with one prefix share a bracket, which is
  // left out for a lone single-number run ("n7", not "n[7]").
  std::string Format() const {
    std::string out;
    for (size_t i = 0; i < runs_.size();) {
      if (i > 0) {
        out.push_back(',');
      }
      const Run& first = runs_[i];
      out.append(first.prefix);
      if (first.single) {
        ++i;
        continue;
      }
      size_t end = i + 1;
      while (end < runs_.size() && !runs_[end].single && runs_[end].prefix == first.prefix) {
        ++end;
      }
      const bool bracket = end - i > 1 || first.hi > first.lo;
      if (bracket) {
        out.push_back('[');
      }
      for (size_t j = i; j < end; ++j) {
        if (j > i) {
          out.push_back(',');
        }
        // Slurm's hostrange_numstr: "lo" or "lo-hi", both padded to the run's width.
        AppendPadded(&out, runs_[j].lo, runs_[j].width);
        if (runs_[j].hi > runs_[j].lo) {
          out.push_back('-');
          AppendPadded(&out, runs_[j].hi, runs_[j].width);
        }
      }
      if (bracket) {
        out.push_back(']');
      }
      i = end;
    }
    return out;
  }

 private:
  // `single` marks a name without a numeric suffix; it never joins or shares a bracket.
  struct Run {
    std::string prefix;
    bool single = false;
    uint64_t lo = 0;
    uint64_t hi = 0;
    size_t width = 0;
  };
  std::vector<Run> runs_;
};

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
        runs.PushRange(prefix, r);
      }
    });
  }
  if (order == HostlistOrder::kSorted) {
    runs.Sort();
  }
  return runs.Format();
}

std::vector<std::string> SortHostlist(std::vector<std::string> hosts) {
  std::vector<HostKey> keys;
  keys.reserve(hosts.size());
  for (const std::string& host : hosts) {
    keys.push_back(SplitName(host));
  }
  std::vector<size_t> order(hosts.size());
  for (size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return KeyLess(keys[a], keys[b]); });
  std::vector<std::string> sorted;
  sorted.reserve(hosts.size());
  for (size_t i : order) {
    sorted.push_back(std::move(hosts[i]));
  }
  return sorted;
}

}  // namespace canopy::slurm
