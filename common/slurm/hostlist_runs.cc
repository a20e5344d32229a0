// RunList, modelled step by step on Slurm 22.05's hostlist.c (hostlist_push_range,
// hostrange_cmp, hostlist_sort/coalesce/collapse, hostlist_ranged_string) so that
// `scontrol show hostlist[sorted]` output is reproduced byte for byte; see
// docs/compat/scontrol-hostlist.md. Comments name the Slurm function each piece mirrors.
#include "common/slurm/hostlist_runs.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/slurm/digits.h"

namespace canopy::slurm::internal {
namespace {

// Coalescing many copies of one big range is quadratic in Slurm too; past this many steps we
// stop splitting overlaps (the hosts printed are still all there) rather than hang.
constexpr uint64_t kMaxCoalesceSteps = 20'000'000;

// C isspace() in the "C" locale.
bool IsSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// Character at `i`, or '\0' past the end, so the loops below read like Slurm's C.
char At(absl::string_view s, size_t i) { return i < s.size() ? s[i] : '\0'; }

// Zeros "%0*lu" adds to `value` at `width` (_zero_padded).
size_t ZeroPadding(uint64_t value, size_t width) {
  const size_t digits = absl::AlphaNum(value).size();
  return width > digits ? width - digits : 0;
}

// _width_equiv: two widths are compatible when using either one for both numbers would not
// change the padding of at least one of them; on success the widths are made equal (Slurm
// mutates the ranges it compares; the change never alters what is printed).
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

// hostrange_prefix_cmp: natural order of prefixes; with equal prefixes a name without a
// number sorts first.
int PrefixCompare(absl::string_view a, bool a_single, absl::string_view b, bool b_single) {
  const int c = a == b ? 0 : NaturalCompare(a, b);
  return c != 0 ? c : static_cast<int>(b_single) - static_cast<int>(a_single);
}

// strnatcmp's compare_left (either run starts with '0'): the first different digit wins.
int CompareLeftAligned(absl::string_view a, size_t ai, absl::string_view b, size_t bi) {
  for (;; ++ai, ++bi) {
    const char x = At(a, ai);
    const char y = At(b, bi);
    if (!IsDigit(x) || !IsDigit(y)) {
      return IsDigit(x) ? 1 : (IsDigit(y) ? -1 : 0);
    }
    if (x != y) {
      return x < y ? -1 : 1;
    }
  }
}

// strnatcmp's compare_right: the longer run wins, else the first different digit.
int CompareRightAligned(absl::string_view a, size_t ai, absl::string_view b, size_t bi) {
  int bias = 0;
  for (;; ++ai, ++bi) {
    const char x = At(a, ai);
    const char y = At(b, bi);
    if (!IsDigit(x) || !IsDigit(y)) {
      return IsDigit(x) ? 1 : (IsDigit(y) ? -1 : bias);
    }
    if (bias == 0 && x != y) {
      bias = x < y ? -1 : 1;
    }
  }
}

}  // namespace

void AppendPadded(std::string* out, uint64_t value, size_t width) {
  const absl::AlphaNum digits(value);
  if (digits.size() < width) {
    out->append(width - digits.size(), '0');
  }
  out->append(digits.data(), digits.size());
}

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
      const int result = (ca == '0' || cb == '0') ? CompareLeftAligned(a, ai, b, bi)
                                                  : CompareRightAligned(a, ai, b, bi);
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

void RunList::PushName(absl::string_view name) {
  // hostname_create: the trailing digits are the number.
  size_t digits_start = name.size();
  while (digits_start > 0 && IsDigit(name[digits_start - 1])) {
    --digits_start;
  }
  const absl::string_view digits = name.substr(digits_start);
  const size_t first = digits.find_first_not_of('0');
  const size_t significant = first == absl::string_view::npos ? 0 : digits.size() - first;
  if (digits.empty() || significant > kMaxSignificantDigits) {
    runs_.push_back(Run{std::string(name.data(), name.size()), true, 0, 0, 0});
    return;
  }
  uint64_t value = 0;
  for (char c : digits) {
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  PushRange(name.substr(0, digits_start), value, value, digits.size());
}

void RunList::PushRange(absl::string_view prefix, uint64_t lo, uint64_t hi, size_t width) {
  if (!runs_.empty()) {
    Run& tail = runs_.back();
    if (!tail.single && tail.hi + 1 == lo &&
        PrefixCompare(tail.prefix, false, prefix, false) == 0 &&
        WidthsCompatible(tail.lo, &tail.width, lo, &width)) {
      tail.hi = hi;
      return;
    }
  }
  runs_.push_back(Run{std::string(prefix.data(), prefix.size()), false, lo, hi, width});
}

int RunList::Compare(Run& a, Run& b) {
  // hostrange_cmp.
  const int c = PrefixCompare(a.prefix, a.single, b.prefix, b.single);
  if (c != 0) {
    return c;
  }
  if (WidthsCompatible(a.lo, &a.width, b.lo, &b.width)) {
    // Slurm returns the unsigned difference converted to int; kept so huge numbers order alike.
    return static_cast<int>(static_cast<uint32_t>(a.lo - b.lo));
  }
  return static_cast<int>(a.width) - static_cast<int>(b.width);
}

void RunList::MergeSort(std::vector<size_t>& order, size_t begin, size_t end,
                        std::vector<size_t>& tmp) {
  // glibc's qsort (msort.c): top-down, left half first, ties keep the left element. Slurm's
  // comparator is not a strict order for mixed paddings, so the exact algorithm matters.
  // Indices are sorted rather than the ranges themselves to avoid moving strings around.
  if (end - begin <= 1) {
    return;
  }
  const size_t mid = begin + (end - begin) / 2;
  MergeSort(order, begin, mid, tmp);
  MergeSort(order, mid, end, tmp);
  tmp.clear();
  size_t i = begin;
  size_t j = mid;
  while (i < mid && j < end) {
    tmp.push_back(Compare(runs_[order[i]], runs_[order[j]]) <= 0 ? order[i++] : order[j++]);
  }
  while (i < mid) {
    tmp.push_back(order[i++]);
  }
  std::copy(tmp.begin(), tmp.end(), order.begin() + static_cast<std::ptrdiff_t>(begin));
}

void RunList::Sort() {
  if (runs_.size() <= 1) {
    return;
  }
  std::vector<size_t> order(runs_.size());
  for (size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
  }
  std::vector<size_t> tmp;
  tmp.reserve(order.size());
  MergeSort(order, 0, order.size(), tmp);
  std::vector<Run> sorted;
  sorted.reserve(runs_.size());
  for (size_t i : order) {
    sorted.push_back(std::move(runs_[i]));
  }
  runs_ = std::move(sorted);
  Coalesce();
  Collapse();
}

void RunList::Coalesce() {
  // hostlist_coalesce: from the end, split each pair of overlapping ranges into the part
  // before, one single per shared host (twice for hosts inside the overlap), and the part
  // after; then start again from the end.
  uint64_t steps = 0;
  for (size_t i = runs_.size() - 1; i > 0 && steps < kMaxCoalesceSteps; --i, ++steps) {
    Run& prev = runs_[i - 1];
    Run& next = runs_[i];
    // hostrange_intersect. Slurm also assumes prev.lo <= next.lo (the sort order); if the
    // comparator broke that, it would free a range it still uses, so we leave the pair alone.
    if (prev.single || next.single || prev.hi <= next.lo || next.lo < prev.lo ||
        PrefixCompare(prev.prefix, false, next.prefix, false) != 0 ||
        !WidthsCompatible(prev.lo, &prev.width, next.lo, &next.width)) {
      continue;
    }
    const uint64_t shared_lo = next.lo;
    const uint64_t shared_hi = std::min(next.hi, prev.hi);
    if (shared_hi < prev.hi) {
      next.hi = prev.hi;
    }
    prev.hi = shared_lo;
    next.lo = shared_hi;
    std::vector<Run> singles;
    for (uint64_t v = shared_lo; v <= shared_hi && steps < kMaxCoalesceSteps; ++v, ++steps) {
      if (v > prev.hi) {
        singles.push_back(Run{prev.prefix, false, v, v, prev.width});
      }
      if (v < next.lo) {
        singles.push_back(Run{prev.prefix, false, v, v, prev.width});
      }
    }
    runs_.insert(runs_.begin() + static_cast<std::ptrdiff_t>(i),
                 std::make_move_iterator(singles.begin()), std::make_move_iterator(singles.end()));
    i = runs_.size();  // the loop's --i restarts from the last pair
  }
}

void RunList::Collapse() {
  // hostlist_collapse: from the end, join each range with the (already joined) one after it
  // when they touch. Built into a new vector so it stays linear.
  std::vector<Run> reversed;
  reversed.reserve(runs_.size());
  Run current = std::move(runs_.back());
  for (size_t i = runs_.size() - 1; i > 0; --i) {
    Run& prev = runs_[i - 1];
    if (!prev.single && !current.single && prev.hi + 1 == current.lo &&
        PrefixCompare(prev.prefix, false, current.prefix, false) == 0 &&
        WidthsCompatible(prev.lo, &prev.width, current.lo, &current.width)) {
      prev.hi = current.hi;
    } else {
      reversed.push_back(std::move(current));
    }
    current = std::move(prev);
  }
  reversed.push_back(std::move(current));
  runs_.assign(std::make_move_iterator(reversed.rbegin()),
               std::make_move_iterator(reversed.rend()));
}

std::string RunList::Format() const {
  // hostlist_ranged_string: consecutive numbered ranges with one prefix share a bracket, which
  // is left out for a lone single-number range ("n7", not "n[7]").
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
    while (end < runs_.size() && !runs_[end].single &&
           PrefixCompare(runs_[end - 1].prefix, false, runs_[end].prefix, false) == 0) {
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
      // hostrange_numstr: "lo" or "lo-hi", both padded to the range's width.
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

std::vector<std::string> RunList::Names() const {
  std::vector<std::string> names;
  for (const Run& r : runs_) {
    if (r.single) {
      names.push_back(r.prefix);
      continue;
    }
    for (uint64_t v = r.lo;; ++v) {
      std::string& name = names.emplace_back(r.prefix);
      AppendPadded(&name, v, r.width);
      if (v == r.hi) {
        break;
      }
    }
  }
  return names;
}

}  // namespace canopy::slurm::internal
