#include "ctl/sacct/json.h"

#include "absl/strings/str_cat.h"
#include "common/slurm/hostlist.h"
#include "common/slurm/slurm_version.h"
#include "ctl/output/job_format.h"
#include "ctl/output/json_value.h"
#include "ctl/output/proto_time.h"
#include "ctl/sacct/values.h"

namespace canopy::ctl::sacct {
namespace {

using output::JsonValue;

using canopy::v1::AccountingRecord;
using canopy::v1::AccountingStep;
using canopy::v1::Job;

int64_t Seconds(const google::protobuf::Timestamp& t) { return output::IsSet(t) ? t.seconds() : 0; }

// {"seconds": 0, "microseconds": 0}: CPU times Canopy does not measure.
JsonValue ZeroCpu() {
  return JsonValue::Object()
      .Set("seconds", JsonValue::Int(0))
      .Set("microseconds", JsonValue::Int(0));
}

// JOB_EXIT_CODE: a signal, else success or failure with the return code.
JsonValue ExitCode(int code, int signal) {
  if (signal > 0) {
    return JsonValue::Object()
        .Set("status", JsonValue::String("SIGNALED"))
        .Set("signal", JsonValue::Object()
                           .Set("signal_id", JsonValue::Int(signal))
                           .Set("name", JsonValue::String(SignalName(signal))));
  }
  return JsonValue::Object()
      .Set("status", JsonValue::String(code == 0 ? "SUCCESS" : "FAILED"))
      .Set("return_code", JsonValue::Int(code));
}

// TRES_LIST, in TRES id order: cpu (1), mem (2), node (4), billing (5), gres/gpu.
JsonValue TresList(const Tres& tres) {
  JsonValue list = JsonValue::Array();
  const auto add = [&list](const char* type, JsonValue name, int id, int64_t count) {
    list.Push(JsonValue::Object()
                  .Set("type", JsonValue::String(type))
                  .Set("name", std::move(name))
                  .Set("id", JsonValue::Int(id))
                  .Set("count", JsonValue::Int(count)));
  };
  add("cpu", JsonValue::Null(), 1, tres.cpu);
  if (tres.mem_listed) {
    add("mem", JsonValue::Null(), 2, tres.mem_mib);
  }
  add("node", JsonValue::Null(), 4, tres.nodes);
  if (tres.billing > 0) {
    add("billing", JsonValue::Null(), 5, tres.billing);
  }
  if (tres.gpus > 0) {
    add("gres", JsonValue::String("gpu"), 1001, tres.gpus);
  }
  return list;
}

std::string Hostlist(const google::protobuf::RepeatedPtrField<std::string>& nodes) {
  const std::vector<std::string> names(nodes.begin(), nodes.end());
  return slurm::CompressHostlist(slurm::SortHostlist(names));
}

JsonValue Step(const AccountingRecord& rec, const AccountingStep& step, const LineContext& c) {
  const Job& job = rec.job();
  const int64_t end =
      output::IsSet(step.end_time()) ? step.end_time().seconds() : Seconds(job.end_time());
  JsonValue empty_usage = JsonValue::Object()
                              .Set("max", JsonValue::Array())
                              .Set("min", JsonValue::Array())
                              .Set("average", JsonValue::Array())
                              .Set("total", JsonValue::Array());
  JsonValue consumed = empty_usage;
  return JsonValue::Object()
      .Set("time", JsonValue::Object()
                       .Set("elapsed", JsonValue::Int(StepElapsedSeconds(step, c.server_time)))
                       .Set("end", JsonValue::Int(end))
                       .Set("start", JsonValue::Int(Seconds(step.start_time())))
                       .Set("suspended", JsonValue::Int(0))
                       .Set("system", ZeroCpu())
                       .Set("total", ZeroCpu())
                       .Set("user", ZeroCpu()))
      .Set("exit_code", ExitCode(step.exit_code(), step.exit_signal()))
      .Set("nodes", JsonValue::Object()
                        .Set("count", JsonValue::Int(step.nodes_size()))
                        .Set("range", JsonValue::String(Hostlist(step.nodes()))))
      .Set("tasks", JsonValue::Object().Set("count", JsonValue::Int(step.ntasks())))
      .Set("pid", JsonValue::Null())
      .Set("CPU",
           JsonValue::Object()
               .Set("requested_frequency",
                    JsonValue::Object().Set("min", JsonValue::Int(0)).Set("max", JsonValue::Int(0)))
               .Set("governor", JsonValue::Array()))
      .Set("kill_request_user", JsonValue::Null())
      .Set("state", JsonValue::String(output::JobStateName(step.state())))
      .Set("statistics",
           JsonValue::Object()
               .Set("CPU", JsonValue::Object().Set("actual_frequency", JsonValue::Int(0)))
               .Set("energy", JsonValue::Object().Set("consumed", JsonValue::Int(0))))
      .Set("step", JsonValue::Object()
                       .Set("job_id", JsonValue::Int(job.job_id()))
                       .Set("het", JsonValue::Object().Set("component", JsonValue::Null()))
                       .Set("id", JsonValue::String(
                                      absl::StrCat(output::JobIdString(job), ".", step.step_id())))
                       .Set("name", JsonValue::String(step.name())))
      .Set("task", JsonValue::Object().Set("distribution", JsonValue::String("Unknown")))
      .Set("tres", JsonValue::Object()
                       .Set("requested", std::move(empty_usage))
                       .Set("consumed", std::move(consumed))
                       .Set("allocated", TresList(StepTres(step))));
}

JsonValue Array(const Job& job) {
  const bool task = job.array_job_id() != 0;
  return JsonValue::Object()
      .Set("job_id", JsonValue::Int(job.array_job_id()))
      .Set("limits", JsonValue::Object().Set(
                         "max", JsonValue::Object().Set(
                                    "running", JsonValue::Object().Set(
                                                   "tasks", JsonValue::Int(ArrayThrottle(job))))))
      .Set("task", JsonValue::Null())
      .Set("task_id", task ? JsonValue::Int(job.array_task_id()) : JsonValue::Null());
}

JsonValue Time(const Job& job, const LineContext& c) {
  const int64_t limit = TimelimitMinutes(job);
  const int64_t eligible = output::IsSet(job.eligible_time()) ? job.eligible_time().seconds()
                                                              : Seconds(job.submit_time());
  return JsonValue::Object()
      .Set("elapsed", JsonValue::Int(JobElapsedSeconds(job, c.server_time)))
      .Set("eligible", JsonValue::Int(eligible))
      .Set("end", JsonValue::Int(Seconds(job.end_time())))
      .Set("start", JsonValue::Int(Seconds(job.start_time())))
      .Set("submission", JsonValue::Int(Seconds(job.submit_time())))
      .Set("suspended", JsonValue::Int(0))
      .Set("system", ZeroCpu())
      .Set("limit", limit < 0 ? JsonValue::Null() : JsonValue::Int(limit))
      .Set("total", ZeroCpu())
      .Set("user", ZeroCpu());
}

std::string NameOf(const std::function<std::string(uint32_t)>& lookup, uint32_t id) {
  return lookup ? lookup(id) : absl::StrCat(id);
}

JsonValue JobObject(const SelectedRecord& r, const LineContext& c) {
  const AccountingRecord& rec = *r.record;
  const Job& job = rec.job();
  const std::string user =
      job.user_name().empty() ? NameOf(c.user_name, job.user_id()) : job.user_name();
  const std::string partition = job.partition().empty() ? job.spec().partition() : job.partition();
  const ExitStatus derived = DerivedExit(rec);
  const Tres requested = JobRequestedTres(job);

  JsonValue steps = JsonValue::Array();
  for (const AccountingStep* step : r.steps) {
    steps.Push(Step(rec, *step, c));
  }
  const std::string comment = job.spec().comment();
  return JsonValue::Object()
      .Set("account", JsonValue::String(job.spec().account()))
      .Set("comment",
           JsonValue::Object()
               .Set("administrator", JsonValue::Null())
               .Set("job", comment.empty() ? JsonValue::Null() : JsonValue::String(comment))
               .Set("system", JsonValue::Null()))
      .Set("allocation_nodes", JsonValue::Int(job.nodes_size()))
      .Set("array", Array(job))
      .Set("association", JsonValue::Object()
                              .Set("account", JsonValue::String(job.spec().account()))
                              .Set("cluster", JsonValue::String(""))
                              .Set("partition", JsonValue::Null())
                              .Set("user", JsonValue::String(user)))
      .Set("cluster", JsonValue::String(""))
      .Set("constraints", JsonValue::String(""))
      .Set("container", JsonValue::Null())
      .Set("derived_exit_code", ExitCode(derived.code, derived.signal))
      .Set("time", Time(job, c))
      .Set("exit_code", ExitCode(job.exit_code(), job.exit_signal()))
      .Set("flags", JsonValue::Array())
      .Set("group", JsonValue::String(NameOf(c.group_name, job.group_id())))
      .Set(
          "het",
          JsonValue::Object().Set("job_id", JsonValue::Int(0)).Set("job_offset", JsonValue::Null()))
      .Set("job_id", JsonValue::Int(job.job_id()))
      .Set("name", JsonValue::String(job.spec().name()))
      .Set("mcs", JsonValue::Object().Set("label", JsonValue::String("")))
      .Set("nodes", JsonValue::String(JobNodeList(job)))
      .Set("partition", JsonValue::String(partition))
      .Set("priority", JsonValue::Int(job.priority()))
      .Set("qos", JsonValue::String(output::JobQosName(job)))
      .Set("required", JsonValue::Object()
                           .Set("CPUs", JsonValue::Int(requested.cpu))
                           .Set("memory", JsonValue::Int(requested.mem_mib)))
      .Set("kill_request_user", rec.has_cancelled_by_uid()
                                    ? JsonValue::String(NameOf(c.user_name, rec.cancelled_by_uid()))
                                    : JsonValue::Null())
      .Set("reservation",
           JsonValue::Object().Set("id", JsonValue::Int(0)).Set("name", JsonValue::String("")))
      .Set("state",
           JsonValue::Object()
               .Set("current", JsonValue::String(output::JobStateName(job.state())))
               .Set("reason", JsonValue::String(job.reason().empty() ? "None" : job.reason())))
      .Set("steps", std::move(steps))
      .Set("tres", JsonValue::Object()
                       .Set("allocated", job.nodes().empty() ? JsonValue::Array()
                                                             : TresList(JobAllocatedTres(job)))
                       .Set("requested", TresList(requested)))
      .Set("user", JsonValue::String(user))
      .Set("wckey",
           JsonValue::Object().Set("wckey", JsonValue::String("")).Set("flags", JsonValue::Array()))
      .Set("working_directory", JsonValue::String(job.spec().work_dir()));
}

}  // namespace

std::string RenderJson(const std::vector<SelectedRecord>& records, const LineContext& context) {
  JsonValue jobs = JsonValue::Array();
  for (const SelectedRecord& r : records) {
    jobs.Push(JobObject(r, context));
  }
  JsonValue document =
      JsonValue::Object()
          .Set("meta",
               JsonValue::Object()
                   .Set("plugin", JsonValue::Object()
                                      .Set("type", JsonValue::String("openapi/dbv0.0.38"))
                                      .Set("name", JsonValue::String("Slurm OpenAPI DB v0.0.38")))
                   .Set("Slurm",
                        JsonValue::Object()
                            .Set("version", JsonValue::Object()
                                                .Set("major", JsonValue::Int(22))
                                                .Set("micro", JsonValue::Int(8))
                                                .Set("minor", JsonValue::Int(5)))
                            .Set("release", JsonValue::String(std::string(slurm::kSlurmRelease)))))
          .Set("errors", JsonValue::Array())
          .Set("jobs", std::move(jobs));
  return document.Pretty() + "\n";
}

}  // namespace canopy::ctl::sacct
