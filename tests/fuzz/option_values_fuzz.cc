// Fuzz target: the value parsers behind sbatch/srun/salloc options and scontrol update: times,
// sizes, counts, GRES and GPU requests, signals, --begin, TRES limits. The first byte picks one.
#include "absl/time/time.h"
#include "common/slurm/begin_time.h"
#include "common/slurm/limit_values.h"
#include "common/slurm/option_values.h"
#include "common/slurm/scheduling_values.h"
#include "common/slurm/time_format.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

void ParseOne(size_t which, absl::string_view text) {
  namespace slurm = canopy::slurm;
  switch (which) {
    case 0:
      (void)slurm::ParseSlurmDuration(std::string_view(text.data(), text.size()));
      break;
    case 1:
      (void)slurm::ParseTimeLimit(text);
      break;
    case 2:
      (void)slurm::ParseMemMib(text);
      break;
    case 3:
      (void)slurm::ParseSizeMib(text, "tmp");
      break;
    case 4:
      (void)slurm::ParseNodeCount(text);
      break;
    case 5:
      (void)slurm::ParsePositiveCount(text, "ntasks");
      break;
    case 6:
      (void)slurm::ParseGres(text);
      break;
    case 7:
      (void)slurm::ParseGpuCount(text);
      break;
    case 8:
      (void)slurm::ParseGpusPerTask(text);
      break;
    case 9:
      (void)slurm::ParseSignalSpec(text);
      break;
    case 10:
      (void)slurm::ParseExport(text);
      break;
    case 11:
      (void)slurm::ParseBeginTime(text, absl::FromUnixSeconds(1764806400), absl::UTCTimeZone());
      break;
    case 12:
      (void)slurm::ParseTresLimits(text);
      break;
    case 13:
      (void)slurm::ParseSchedulerParameters(text);
      break;
    case 14:
      (void)slurm::ParseTresBillingWeights(text);
      break;
    case 15:
      (void)slurm::ParsePriorityFlags(text);
      break;
    default:
      (void)slurm::CheckHostlist(text, "nodelist");
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view text = canopy::fuzz::AsText(data, size);
  size_t which = 0;
  if (canopy::fuzz::TakeSelector(text, 17, which)) {
    ParseOne(which, text);
  }
  return 0;
}
