// A set of numbers as Slurm writes one: ascending, with runs joined ("0-3,6"). GPU indexes in
// scontrol's GRES=gpu:4(IDX:0-3) and squeue --json's gres_detail, an array's pending task ids
// (squeue's 5_[1-3,7]), the ranks srun names in its exit summary. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace canopy::ctl::output {

// {6, 0, 1, 2, 3} -> "0-3,6"; duplicates are kept as Slurm's bitmaps would not have them (the
// callers' sets have none).
std::string NumberRanges(std::vector<int64_t> numbers);

// The same for a comma-separated list ("0,1,2,3" -> "0-3"), as the wire carries GPU indexes;
// what is not a number is left out.
std::string NumberRangesOfList(absl::string_view csv);

}  // namespace canopy::ctl::output
