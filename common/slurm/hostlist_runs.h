// RunList: Slurm's in-memory hostlist, an array of ranges "prefix<lo..hi>" (hostlist.c's
// hostrange), with the operations `scontrol show hostlist[sorted]` uses: append
// (hostlist_push_host / hostlist_push_range), sort (hostlist_sort) and print
// (hostlist_ranged_string). Internal to canopy_slurm (hostlist.cc is its only user); callers
// outside the library use hostlist.h. A plain value type: not thread-safe, no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace canopy::slurm::internal {

// Numbers are kept below 10^18 so that hi - lo + 1 and hi + 1 cannot overflow uint64_t.
inline constexpr size_t kMaxSignificantDigits = 18;

// Appends `value` zero-padded to `width` (Slurm's "%0*lu").
void AppendPadded(std::string* out, uint64_t value, size_t width);

// Slurm's strnatcmp (Martin Pool's natural order), which orders hostlist prefixes: runs of
// digits compare by value ("a2" < "a10"), or digit by digit when either starts with '0';
// whitespace is skipped. Returns <0, 0 or >0.
int NaturalCompare(absl::string_view a, absl::string_view b);

class RunList {
 public:
  // Makes room for `n` ranges (a hint; at most one range per name pushed).
  void Reserve(size_t n) { runs_.reserve(n); }

  // Appends one host name; its trailing digits are the number. A name without digits, or with
  // more than kMaxSignificantDigits of them (Slurm's strtoul would saturate), stays literal.
  void PushName(absl::string_view name);

  // Appends the range prefix<lo..hi> printed with `width` digits; requires lo <= hi < 10^18.
  // Like Slurm it extends the last range when it continues it (same prefix, next number,
  // compatible padding) and never looks further back, so nothing is sorted or deduplicated.
  void PushRange(absl::string_view prefix, uint64_t lo, uint64_t hi, size_t width);

  // Slurm's hostlist_sort: a stable merge sort of the ranges (glibc's qsort) with Slurm's
  // comparator, then overlapping ranges are split apart and touching ones joined. Duplicates
  // stay ("n1,n[1-3],n2" sorts to "n[1,1-2,2-3]").
  void Sort();

  // Slurm's hostlist_ranged_string: "n[1-3,7],login1".
  std::string Format() const;

  // Every host name, in order.
  std::vector<std::string> Names() const;

 private:
  // `single` marks a name without a numeric suffix (the whole name is in `prefix`); it never
  // joins or shares a bracket with another range.
  struct Run {
    std::string prefix;
    bool single = false;
    uint64_t lo = 0;
    uint64_t hi = 0;
    size_t width = 0;
  };

  static int Compare(Run& a, Run& b);
  void MergeSort(std::vector<size_t>& order, size_t begin, size_t end, std::vector<size_t>& tmp);
  void Coalesce();
  void Collapse();

  std::vector<Run> runs_;
};

}  // namespace canopy::slurm::internal
