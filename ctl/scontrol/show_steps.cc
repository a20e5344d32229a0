// scontrol show steps: step ids and records (show_steps.h).
#include "ctl/scontrol/show_steps.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/slurm/hostlist.h"
#include "ctl/output/job_format.h"
#include "ctl/output/proto_time.h"
#include "ctl/scontrol/record_text.h"

namespace canopy::ctl::scontrol {
namespace {

constexpr uint32_t kNoVal = 0xfffffffe;  // Slurm's NO_VAL: a step id that was not given

bool Number(absl::string_view text, uint32_t& out) {
  return !text.empty() && absl::ascii_isdigit(text[0]) && absl::SimpleAtoi(text, &out);
}

// The job's memory on the step's nodes.
int64_t StepMemMib(const canopy::v1::Job& job, const canopy::v1::JobStep& step) {
  int64_t mib = 0;
  for (const std::string& node : step.nodes()) {
    for (int i = 0; i < job.nodes_size() && i < job.mem_allocated_mib_size(); ++i) {
      if (job.nodes(i) == node) {
        mib += job.mem_allocated_mib(i);
      }
    }
  }
  return mib;
}

// "5", or "7_2" for a task of array 7.
std::string JobIdText(const canopy::v1::Job& job) {
  return job.array_job_id() != 0 ? absl::StrCat(job.array_job_id(), "_", job.array_task_id())
                                 : absl::StrCat(job.job_id());
}

}  // namespace

absl::StatusOr<StepTarget> ParseStepTarget(const std::string& text) {
  const absl::Status invalid =
      absl::InvalidArgumentError("slurm_get_job_steps error: Invalid job id specified");
  StepTarget t;
  absl::string_view rest = text;
  if (const size_t dot = rest.find('.'); dot != absl::string_view::npos) {
    uint32_t step = 0;
    if (rest.substr(dot + 1) == "batch") {
      t.batch = true;
    } else if (!Number(rest.substr(dot + 1), step)) {
      return invalid;
    } else {
      t.step_id = step;
    }
    rest = rest.substr(0, dot);
  }
  if (const size_t underscore = rest.find('_'); underscore != absl::string_view::npos) {
    uint32_t task = 0;
    if (!Number(rest.substr(underscore + 1), task)) {
      return invalid;
    }
    t.task = task;
    rest = rest.substr(0, underscore);
  }
  if (!Number(rest, t.job_id) || t.job_id == 0) {
    return invalid;
  }
  return t;
}

std::string StepNotFound(const StepTarget& target) {
  const std::string step =
      target.batch ? std::string("batch") : absl::StrCat(target.step_id.value_or(kNoVal));
  if (target.task.has_value()) {
    return absl::StrCat("Job step ", target.job_id, "_", *target.task, ".", step, " not found");
  }
  return absl::StrCat("Job step ", target.job_id, ".", step, " not found");
}

bool HasBatchStep(const canopy::v1::Job& job) {
  return !job.spec().script().empty() && job.nodes_size() > 0 &&
         job.state() == canopy::v1::JOB_STATE_RUNNING;
}

std::string RenderBatchStep(const canopy::v1::Job& job, absl::TimeZone tz, bool one_liner) {
  const std::string end = one_liner ? " " : "\n   ";
  std::string out =
      absl::StrCat("StepId=", JobIdText(job), ".batch UserId=", job.user_id(),
                   " StartTime=", output::FormatTimestampOr(job.start_time(), tz, "Unknown"),
                   " TimeLimit=UNLIMITED", end);
  absl::StrAppend(&out, "State=", output::JobStateName(job.state()), " Partition=", job.partition(),
                  " NodeList=", job.nodes(0), end);
  absl::StrAppend(&out, "Nodes=1 CPUs=0 Tasks=1 Name=batch Network=(null)", end);
  absl::StrAppend(&out, "TRES=(null)", end, "ResvPorts=(null)", end, "CPUFreqReq=Default", end,
                  "SrunHost:Pid=(null):0", one_liner ? "\n" : "\n\n");
  return out;
}

std::string RenderStep(const canopy::v1::Job& job, const canopy::v1::JobStep& step,
                       absl::TimeZone tz, bool one_liner) {
  const std::string end = one_liner ? " " : "\n   ";
  const std::string id = JobIdText(job);
  const std::vector<std::string> nodes(step.nodes().begin(), step.nodes().end());
  const int64_t mem = StepMemMib(job, step);

  std::string out =
      absl::StrCat("StepId=", id, ".", step.step_id(), " UserId=", job.user_id(),
                   " StartTime=", output::FormatTimestampOr(step.start_time(), tz, "Unknown"),
                   " TimeLimit=UNLIMITED", end);
  // A listed step is running; canopyd may leave its state unset.
  const canopy::v1::JobState state = step.state() == canopy::v1::JOB_STATE_UNSPECIFIED
                                         ? canopy::v1::JOB_STATE_RUNNING
                                         : step.state();
  absl::StrAppend(&out, "State=", output::JobStateName(state), " Partition=", job.partition(),
                  " NodeList=", slurm::CompressHostlist(nodes), end);
  absl::StrAppend(&out, "Nodes=", nodes.size(), " CPUs=", step.cpus(), " Tasks=", step.ntasks(),
                  " Name=", step.name(), " Network=(null)", end);
  // A step's TRES keeps mem=0 (Slurm prints it), unlike a node's.
  absl::StrAppend(&out, "TRES=cpu=", step.cpus(), ",mem=", SlurmMem(mem), ",node=", nodes.size(),
                  end);
  absl::StrAppend(&out, "ResvPorts=(null)", end, "CPUFreqReq=Default Dist=Block", end,
                  "SrunHost:Pid=(null):0");
  absl::StrAppend(&out, one_liner ? "\n" : "\n\n");
  return out;
}

}  // namespace canopy::ctl::scontrol
