// Slurm hostlist expressions: "gpu[001-016]", "rack[1-2]-gpu[01-04]", "a,b[1,3-5]".
//
// Pure functions with no I/O; thread-safe. Expansion and compression follow Slurm's own
// hostlist.c (as observed with `scontrol show hostnames` / `scontrol show hostlist` of Slurm
// 22.05): zero padding is kept, several bracket groups expand as a cartesian product, the last
// bracket group varies fastest. docs/compat/scontrol-hostlist.md records the observed
// behaviour, including the few places where we are deliberately stricter than Slurm.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace canopy::slurm {

// Slurm's own cap on one range inside brackets (hostlist.c MAX_RANGE): "n[1-65536]" is accepted,
// "n[1-65537]" is rejected.
inline constexpr uint64_t kMaxHostsPerRange = 65536;

// Our cap on a whole expression, to bound memory (Slurm has none and can be OOM-killed).
inline constexpr size_t kMaxExpandedHosts = 1'000'000;

// Expands an expression into host names, in the order Slurm lists them (duplicates kept).
//
// Grammar: hosts are separated by ',' or whitespace outside brackets (empty items are skipped,
// so "" and " , " expand to nothing). A host is text with zero or more bracket groups
// "prefix[list]mid[list]"; a list is comma-separated "N" or "N-M" with decimal digits; the
// width of N (leading zeros included) is the zero-padded width of every name of that range.
// Text after the last bracket group is rejected, as Slurm 22.05 does ("n[1-2]a").
// Order with several groups is Slurm's: the last group varies fastest, then the first, second,
// ... up to the second-to-last, which varies slowest ("x[1-2]y[3-4]z[5-6]" gives x1y3z5,
// x1y3z6, x2y3z5, x2y3z6, x1y4z5, ...).
//
// InvalidArgument, with a message that quotes the expression and says what is wrong, for an
// unbalanced or nested bracket, an empty range ("n[]", "n[1,]"), a reversed range "5-1", a
// non-numeric range, a number with more than 18 significant digits, more than kMaxHostsPerRange
// hosts in one range, or more than kMaxExpandedHosts hosts (or 64 MiB of names) in all. Complexity:
// linear in the size of the output.
absl::StatusOr<std::vector<std::string>> ExpandHostlist(std::string_view expression);

// Compresses host names into the shortest ranged expression Slurm would print for them, as
// `scontrol show hostlist` does (e.g. {gpu001,gpu002,gpu003,gpu007} -> "gpu[001-003,007]").
// Like Slurm it neither sorts nor removes duplicates: {n3,n2,n1} -> "n[3,2,1]",
// {n1,n2,n2,n3} -> "n[1-2,2-3]", {a,b,a} -> "a,b,a". Names differing only in padding are
// kept apart ({n1,n01} -> "n[1,01]"). Each element is taken as one literal name (no expansion).
// Complexity: linear in the total length of the names.
std::string CompressHostlist(const std::vector<std::string>& hosts);

// Sorts host names into the order `scontrol show hostlistsorted` prints them, following Slurm's
// hostlist_sort step by step: by prefix in natural order ("a2" before "a10"), a name without a
// number before numbered ones, then by number, or by padding width where the paddings are
// incompatible ("n9" before "n01"). Duplicates stay, so CompressHostlist(SortHostlist(names))
// is `scontrol show hostlistsorted` of those names ({n3,n1,n2,n1,b,a} -> "a,b,n[1,1-3]").
// One known difference: where one prefix mixes paddings so that Slurm's comparator misorders
// overlapping ranges, Slurm 22.05 drops hosts (a use-after-free in hostlist_coalesce); we keep
// them. Complexity: O(n log n) for n names, plus the splitting of overlapping ranges.
std::vector<std::string> SortHostlist(const std::vector<std::string>& hosts);

enum class HostlistOrder {
  kAsWritten,  // `scontrol show hostlist`
  kSorted,     // `scontrol show hostlistsorted`
};

// Rewrites an expression exactly as `scontrol show hostlist EXPR` (or, with kSorted,
// `scontrol show hostlistsorted EXPR`) prints it. That is not always
// CompressHostlist(*ExpandHostlist(EXPR)): Slurm keeps the text before the last '[' of each item
// as written, so "b0[1-2]" stays "b0[1-2]" (the names b01,b02 compress to "b[01-02]"), and with
// several groups only the last one stays ranged ("rack[1-2]-gpu[01-02]" ->
// "rack1-gpu[01-02],rack2-gpu[01-02]"). For items without brackets the two agree.
// Errors: as ExpandHostlist (the same caps apply, though nothing is fully expanded).
absl::StatusOr<std::string> CompressHostlistExpression(
    std::string_view expression, HostlistOrder order = HostlistOrder::kAsWritten);

}  // namespace canopy::slurm
