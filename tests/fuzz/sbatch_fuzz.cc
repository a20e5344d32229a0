// Fuzz target: a batch script's #SBATCH lines and sbatch's command line. The input is the
// script, then a NUL, then the command-line arguments separated by NULs.
#include "common/slurm/sbatch_options.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> parts = canopy::fuzz::SplitArguments(canopy::fuzz::AsText(data, size));
  const std::string script = parts.front();
  parts.erase(parts.begin());
  (void)canopy::slurm::FindSbatchInfoRequest(parts);
  (void)canopy::slurm::ParseSbatch(script, parts);
  return 0;
}
