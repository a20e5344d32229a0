#include "ctl/sbatch/job_variables.h"

#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/slurm/array_spec.h"
#include "common/slurm/job_environment.h"

namespace canopy::ctl::sbatch {
namespace {

// The digits after the spec's first ':' ("0-15:4%2" gives 4); 1 without one.
int64_t ArrayStep(absl::string_view spec) {
  const size_t colon = spec.find(':');
  if (colon == absl::string_view::npos) {
    return 1;
  }
  absl::string_view digits = spec.substr(colon + 1);
  size_t n = 0;
  while (n < digits.size() && absl::ascii_isdigit(static_cast<unsigned char>(digits[n]))) {
    ++n;
  }
  int64_t step = 1;
  return absl::SimpleAtoi(digits.substr(0, n), &step) && step > 0 ? step : 1;
}

}  // namespace

void AddSbatchVariables(const slurm::SbatchOptions& o, int prio_process,
                        canopy::v1::JobSpec& spec) {
  auto& env = *spec.mutable_environment();
  slurm::SubmitOptionsInput in;
  in.cpus_per_task = o.cpus_per_task;
  in.mem_per_node_mib = o.mem_per_node_mib;
  in.mem_per_gpu_mib = o.mem_per_gpu_mib;
  in.cpus_per_gpu = o.cpus_per_gpu;
  in.gpus = o.gpus_text;
  in.gpus_per_node = o.gpus_per_node_text;
  in.gpus_per_task = o.gpus_per_task_text;
  in.overcommit = o.overcommit;
  in.distribution = o.distribution;
  for (auto& [key, value] : slurm::SubmitOptionVariables(in)) {
    env[key] = std::move(value);
  }
  if (!o.dependency.empty()) {
    env["SLURM_JOB_DEPENDENCY"] = o.dependency;
  }
  if (!o.array.empty()) {
    // canopyd checks the spec against its MaxArraySize; here only its shape matters.
    absl::StatusOr<slurm::ArraySpec> array =
        slurm::ParseArraySpec(o.array, slurm::kMaxArraySizeLimit);
    if (array.ok() && !array->task_ids.empty()) {
      env["SLURM_ARRAY_TASK_COUNT"] = absl::StrCat(array->task_ids.size());
      env["SLURM_ARRAY_TASK_MIN"] = absl::StrCat(array->task_ids.front());
      env["SLURM_ARRAY_TASK_MAX"] = absl::StrCat(array->task_ids.back());
      env["SLURM_ARRAY_TASK_STEP"] = absl::StrCat(ArrayStep(o.array));
    }
  }
  env["SLURM_PRIO_PROCESS"] = absl::StrCat(prio_process);
}

}  // namespace canopy::ctl::sbatch
