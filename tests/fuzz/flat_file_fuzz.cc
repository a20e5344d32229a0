// Fuzz target: the accounts flat file (sacctmgr load/dump format), and the dump of each record
// that parses.
#include "common/slurm/sacctmgr_file.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<std::vector<canopy::slurm::FlatFileRecord>> records =
      canopy::slurm::ParseFlatFile(canopy::fuzz::AsText(data, size), "fuzz.cfg");
  if (!records.ok()) {
    return 0;
  }
  for (const canopy::slurm::FlatFileRecord& record : *records) {
    (void)canopy::slurm::FormatFlatFileRecord(record);
  }
  return 0;
}
