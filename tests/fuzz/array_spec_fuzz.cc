// Fuzz target: --array specifications ("0-15:4%2"). What parses stays below MaxArraySize.
#include <algorithm>
#include <cstdlib>

#include "common/slurm/array_spec.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<canopy::slurm::ArraySpec> spec =
      canopy::slurm::ParseArraySpec(canopy::fuzz::AsText(data, size));
  if (!spec.ok()) {
    return 0;
  }
  if (spec->task_ids.empty() || spec->task_ids.back() >= 1001 || spec->max_running < 0 ||
      std::adjacent_find(spec->task_ids.begin(), spec->task_ids.end(),
                         [](uint32_t a, uint32_t b) { return a >= b; }) != spec->task_ids.end()) {
    std::abort();  // ascending, unique, within the limit
  }
  return 0;
}
