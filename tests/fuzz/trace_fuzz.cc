// Fuzz target: the simulator's trace formats (Canopy CSV, SWF, Philly CSV), format detection
// included.
#include "scheduler/sim/trace.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view text = canopy::fuzz::AsText(data, size);
  size_t which = 0;
  if (!canopy::fuzz::TakeSelector(text, 3, which)) {
    return 0;
  }
  namespace sim = canopy::sim;
  absl::StatusOr<std::vector<sim::TraceJob>> jobs =
      which == 0   ? sim::ParseCanopyCsv(text, "fuzz.csv")
      : which == 1 ? sim::ParseSwf(text, "fuzz.swf", 8)
                   : sim::ParsePhillyCsv(text, "fuzz-philly.csv");
  (void)sim::DetectTraceFormat("fuzz.csv", text);
  if (jobs.ok()) {
    (void)sim::NormalizeTrace(*jobs, "fuzz");
  }
  return 0;
}
