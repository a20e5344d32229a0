// Fuzz target: --dependency lists ("afterok:12:13,singleton"), and scontrol's rendering of what
// parses.

#include "common/slurm/dependency.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<canopy::slurm::DependencyList> list =
      canopy::slurm::ParseDependency(canopy::fuzz::AsText(data, size));
  if (list.ok()) {
    (void)canopy::slurm::FormatDependency(*list);
  }
  return 0;
}
