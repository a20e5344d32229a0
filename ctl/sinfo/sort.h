// sinfo -S / SINFO_SORT: the order of the rows, as Slurm 22.05's sinfo/sort.c orders them.
// Pure; thread-safe.
//
// A sort is a list of -o letters, each optionally preceded by '-' (descending) or '+'
// (ascending, the default); "#P" orders partitions as configured. Separators (',') may be left
// out ("#P-t"). Letters sinfo cannot sort by are ignored, silently, as Slurm ignores them. The
// default is "#P,-t" (partitions as configured, then by decreasing state word: drained before
// idle before down), and "N" with -N. Keys compare what sinfo compares: numbers by value (a
// row's minimum), node lists by their first node with numbers compared as numbers ("n2" before
// "n10"), states by Slurm's numeric state word.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "ctl/sinfo/rows.h"

namespace canopy::ctl::sinfo {

// Sorts `rows` by `sort` (empty: the default for `node_oriented`). Rows equal on every key
// keep their order.
void SortRows(absl::string_view sort, bool node_oriented, std::vector<Row>& rows);

}  // namespace canopy::ctl::sinfo
