// Agent reports -> the lifecycle's commands (proto_convert.h): job and step statuses, and what a
// registering agent still runs.
#include <optional>
#include <utility>
#include <vector>

#include "scheduler/server/proto_convert.h"

namespace canopy::server {

std::optional<lifecycle::JobReport> FromProto(const canopy::v1::JobStatus& s) {
  lifecycle::JobReport out;
  out.job = core::JobId(s.job_id());
  switch (s.phase()) {
    case canopy::v1::JobStatus::PHASE_LAUNCHED:
      out.phase = lifecycle::JobPhase::kLaunched;
      break;
    case canopy::v1::JobStatus::PHASE_LAUNCH_FAILED:
      out.phase = lifecycle::JobPhase::kLaunchFailed;
      break;
    case canopy::v1::JobStatus::PHASE_EXITED:
      out.phase = lifecycle::JobPhase::kExited;
      break;
    case canopy::v1::JobStatus::PHASE_CLEANED_UP:
      out.phase = lifecycle::JobPhase::kCleanedUp;
      break;
    default:
      return std::nullopt;
  }
  out.exit_code = s.exit_code();
  out.exit_signal = s.exit_signal();
  out.out_of_memory = s.out_of_memory();
  out.message = s.message();
  out.run_id = s.run_id();
  out.node_fault = s.node_fault();
  out.fenced = s.fenced();
  out.drain_reason = s.drain_reason();
  out.cleaned_up = out.phase == lifecycle::JobPhase::kExited && s.cleaned_up();
  return out;
}

std::vector<lifecycle::RunningJob> RunningJobsFromProto(const canopy::v1::Register& reg) {
  std::vector<lifecycle::RunningJob> out;
  if (reg.running_jobs().empty()) {
    for (uint32_t id : reg.running_job_ids()) {
      out.push_back({core::JobId(id), 0, {}, 0, {}});
    }
    return out;
  }
  for (const canopy::v1::RunningJob& r : reg.running_jobs()) {
    std::vector<lifecycle::StepReport> ended;
    for (const canopy::v1::StepStatus& step : r.ended_steps()) {
      ended.push_back(FromProto(step));
    }
    out.push_back({core::JobId(r.job_id()), r.run_id(),
                   std::vector<int>(r.gpu_indexes().begin(), r.gpu_indexes().end()), r.cpus(),
                   std::move(ended)});
  }
  return out;
}

lifecycle::StepReport FromProto(const canopy::v1::StepStatus& s) {
  return {core::JobId(s.job_id()), s.step_id(),    s.node_index(), s.exited(),
          s.exit_code(),           s.exit_signal()};
}

}  // namespace canopy::server
