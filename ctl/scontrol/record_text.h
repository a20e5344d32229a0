// Value formats shared by scontrol's records (show node, show partition, show steps), as Slurm
// 22.05 writes them: secs2time_str's clock, convert_num_unit's exact memory sizes, and TRES
// lists with zero counts left out. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"

namespace canopy::ctl::scontrol {

// secs2time_str: "HH:MM:SS", "D-HH:MM:SS"; "UNLIMITED" for an infinite duration.
std::string SlurmClock(absl::Duration d);

// A size in MiB as convert_num_unit(..., UNIT_MEGA, CONVERT_NUM_UNIT_EXACT) prints it: the
// largest unit that divides it exactly ("4G", "1536M", "1T"); "0" for zero.
std::string SlurmMem(int64_t mib);

// "cpu=8,mem=4G,billing=8": each NAME=VALUE of `items` whose count is not zero, in order (a
// node's AllocTRES of nothing allocated is empty). `items` pairs a name with its count and its
// printed value.
struct TresItem {
  std::string name;
  int64_t count = 0;
  std::string value;
};
std::string TresList(const std::vector<TresItem>& items);

}  // namespace canopy::ctl::scontrol
