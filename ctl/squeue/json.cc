#include "ctl/squeue/json.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/slurm/slurm_version.h"
#include "ctl/output/job_format.h"
#include "ctl/output/json_value.h"
#include "ctl/output/number_ranges.h"
#include "ctl/output/proto_time.h"
#include "ctl/squeue/job_values.h"
#include "ctl/squeue/rows.h"

namespace canopy::ctl::squeue {
namespace {

using canopy::v1::Job;
using output::JsonValue;

// Slurm stores a job without a limit as ending a year after its start.
constexpr int64_t kYear = 365 * 24 * 3600;

int64_t Seconds(const google::protobuf::Timestamp& t) { return output::IsSet(t) ? t.seconds() : 0; }

JsonValue IntOrNull(int64_t n) { return n > 0 ? JsonValue::Int(n) : JsonValue::Null(); }

JsonValue Str(std::string s) { return JsonValue::String(std::move(s)); }

std::string GresOrEmpty(int64_t count) { return count > 0 ? absl::StrCat("gres:gpu:", count) : ""; }

// squeue --json leaves out what squeue -O prints as N/A.
std::string EmptyForNA(std::string s) { return s == "N/A" ? std::string() : s; }

JsonValue GresDetail(const Job& job) {
  JsonValue list = JsonValue::Array();
  for (int i = 0; i < job.gpus_per_node_allocated_size(); ++i) {
    const int gpus = job.gpus_per_node_allocated(i);
    if (gpus <= 0) {
      continue;
    }
    std::string detail = absl::StrCat("gpu:", gpus);
    if (i < job.node_gpu_indexes_size()) {
      absl::StrAppend(&detail, "(IDX:", output::NumberRangesOfList(job.node_gpu_indexes(i)), ")");
    }
    list.Push(Str(detail));
  }
  return list;
}

JsonValue JobResources(const Job& job) {
  JsonValue nodes = JsonValue::Array();
  int64_t cores = 0;
  for (int i = 0; i < job.nodes_size(); ++i) {
    const int cpus = i < job.cpus_allocated_size() ? job.cpus_allocated(i) : 0;
    const int64_t mem = i < job.mem_allocated_mib_size() ? job.mem_allocated_mib(i) : 0;
    cores += cpus;
    nodes.Push(JsonValue::Object()
                   .Set("sockets", JsonValue::Object())
                   .Set("nodename", Str(job.nodes(i)))
                   .Set("cpus_used", JsonValue::Int(cpus))
                   .Set("memory_used", JsonValue::Int(mem))
                   .Set("memory_allocated", JsonValue::Int(mem)));
  }
  return JsonValue::Object()
      .Set("nodes", Str(NodeListOf(job)))
      .Set("allocated_cores", JsonValue::Int(cores))
      .Set("allocated_hosts", JsonValue::Int(job.nodes_size()))
      .Set("allocated_nodes", std::move(nodes));
}

int64_t EndTime(const Job& job) {
  if (!HasStarted(job)) {
    return Seconds(job.end_time());
  }
  const int64_t end = ExpectedEndSeconds(job);
  return end != 0 ? end : job.start_time().seconds() + kYear;
}

JsonValue JobObject(const JobRow& row, const FieldContext& c) {
  const Job& job = *row.job;
  const canopy::v1::JobSpec& spec = job.spec();
  const bool started = HasStarted(job);
  const bool held = job.reason().rfind("JobHeld", 0) == 0;
  const std::string throttle = spec.array_spec().find('%') == std::string::npos
                                   ? ""
                                   : spec.array_spec().substr(spec.array_spec().find('%') + 1);
  int64_t max_tasks = 0;
  if (!absl::SimpleAtoi(throttle, &max_tasks)) {
    max_tasks = 0;
  }
  const JobField* tres_alloc = JobFieldByName("tres-alloc");
  const std::string dependency = DependencyString(spec);
  JsonValue flags = JsonValue::Array();
  if (started) {
    flags.Push(Str("JOB_WAS_RUNNING"));
  }
  JsonValue o = JsonValue::Object();
  o.Set("account", Str(spec.account()))
      .Set("accrue_time", JsonValue::Int(held ? 0 : Seconds(job.eligible_time())))
      .Set("admin_comment", Str(""))
      .Set("array_job_id", JsonValue::Int(job.array_job_id()))
      .Set("array_task_id", job.array_job_id() != 0 && !row.pending_group
                                ? JsonValue::Int(job.array_task_id())
                                : JsonValue::Null())
      .Set("array_max_tasks", JsonValue::Int(job.array_job_id() != 0 ? max_tasks : 0))
      .Set("array_task_string", Str(row.pending_group ? row.task_string : ""))
      .Set("association_id", JsonValue::Int(0))
      .Set("batch_features", Str(""))
      .Set("batch_flag", JsonValue::Bool(IsBatchJob(job)))
      .Set("batch_host", Str(job.nodes().empty() ? "" : job.nodes(0)))
      .Set("flags", std::move(flags))
      .Set("burst_buffer", Str(""))
      .Set("burst_buffer_state", Str(""))
      .Set("cluster", Str(""))
      .Set("cluster_features", Str(""))
      .Set("command", Str(""))
      .Set("comment", Str(spec.comment()))
      .Set("container", Str(spec.container()))
      .Set("contiguous", JsonValue::Bool(false))
      .Set("core_spec", JsonValue::Null())
      .Set("thread_spec", JsonValue::Null())
      .Set("cores_per_socket", JsonValue::Null())
      .Set("billable_tres", JsonValue::Null())
      .Set("cpus_per_task", IntOrNull(spec.cpus_per_task()))
      .Set("cpu_frequency_minimum", JsonValue::Null())
      .Set("cpu_frequency_maximum", JsonValue::Null())
      .Set("cpu_frequency_governor", JsonValue::Null())
      .Set("cpus_per_tres", Str(GresOrEmpty(spec.cpus_per_gpu())))
      .Set("deadline", JsonValue::Int(Seconds(spec.deadline())))
      .Set("delay_boot", JsonValue::Int(spec.delay_boot().seconds()))
      .Set("dependency", Str(dependency == "(null)" ? "" : dependency))
      .Set("derived_exit_code", JsonValue::Int(0))
      .Set("eligible_time", JsonValue::Int(held ? 0 : Seconds(job.eligible_time())))
      .Set("end_time", JsonValue::Int(EndTime(job)))
      .Set("excluded_nodes", Str(spec.excluded_nodes()))
      // The wait status, as Slurm keeps it: exit code in the high byte, signal in the low.
      .Set("exit_code", JsonValue::Int((job.exit_code() << 8) | job.exit_signal()))
      .Set("features", Str(""))
      .Set("federation_origin", Str(""))
      .Set("federation_siblings_active", Str(""))
      .Set("federation_siblings_viable", Str(""))
      .Set("gres_detail", GresDetail(job))
      .Set("group_id", JsonValue::Int(job.group_id()))
      .Set("group_name",
           Str(c.group_name ? c.group_name(job.group_id()) : absl::StrCat(job.group_id())))
      .Set("job_id", JsonValue::Int(row.base_id));
  if (started) {
    o.Set("job_resources", JobResources(job));
  }
  o.Set("job_state", Str(output::JobStateName(job.state())))
      .Set("last_sched_evaluation", JsonValue::Int(0))
      .Set("licenses", Str(""))
      .Set("max_cpus", JsonValue::Int(0))
      .Set("max_nodes", JsonValue::Int(spec.max_nodes()))
      .Set("mcs_label", Str(""))
      .Set("memory_per_tres", Str(GresOrEmpty(spec.mem_per_gpu_mib())))
      .Set("name", Str(spec.name()))
      .Set("nodes", Str(NodeListOf(job)))
      .Set("nice", spec.nice() != 0 ? JsonValue::Int(spec.nice()) : JsonValue::Null())
      .Set("tasks_per_core", JsonValue::Null())
      .Set("tasks_per_node", JsonValue::Int(spec.ntasks_per_node()))
      .Set("tasks_per_socket", JsonValue::Null())
      .Set("tasks_per_board", JsonValue::Int(0))
      .Set("cpus", JsonValue::Int(output::JobCpuCount(job)))
      .Set("node_count", JsonValue::Int(output::JobNodeCount(job)))
      .Set("tasks", JsonValue::Int(spec.ntasks() > 0 ? spec.ntasks() : output::JobNodeCount(job)))
      .Set("het_job_id", JsonValue::Int(0))
      .Set("het_job_id_set", Str(""))
      .Set("het_job_offset", JsonValue::Int(0))
      .Set("partition", Str(PartitionOf(job)))
      .Set("prefer", Str(""))
      .Set("memory_per_node", IntOrNull(spec.mem_per_node_mib()))
      .Set("memory_per_cpu", JsonValue::Null())
      .Set("minimum_cpus_per_node", JsonValue::Int(std::max(1, spec.cpus_per_task())))
      .Set("minimum_tmp_disk_per_node", JsonValue::Int(0))
      .Set("preempt_time", JsonValue::Int(0))
      .Set("pre_sus_time", JsonValue::Int(0))
      .Set("priority", JsonValue::Int(job.priority()))
      .Set("profile", JsonValue::Null())
      .Set("qos", Str(job.qos()))
      .Set("reboot", JsonValue::Bool(false))
      .Set("required_nodes", Str(spec.required_nodes()))
      .Set("requeue", JsonValue::Bool(spec.requeue()))
      .Set("resize_time", JsonValue::Int(0))
      .Set("restart_cnt", JsonValue::Int(job.restart_count()))
      .Set("resv_name", Str(spec.reservation()))
      .Set("shared", JsonValue::Null())
      .Set(
          "show_flags",
          JsonValue::Array().Push(Str("SHOW_ALL")).Push(Str("SHOW_DETAIL")).Push(Str("SHOW_LOCAL")))
      .Set("sockets_per_board", JsonValue::Int(0))
      .Set("sockets_per_node", JsonValue::Null())
      .Set("start_time",
           JsonValue::Int(started ? job.start_time().seconds() : Seconds(job.expected_start())))
      .Set("state_description", Str(job.state_message()))
      .Set("state_reason", Str(job.reason().empty() ? "None" : job.reason()))
      .Set("standard_error", Str(spec.stderr_path()))
      .Set("standard_input", Str(spec.stdin_path().empty() ? "/dev/null" : spec.stdin_path()))
      .Set("standard_output", Str(spec.stdout_path()))
      .Set("submit_time", JsonValue::Int(Seconds(job.submit_time())))
      .Set("suspend_time", JsonValue::Int(0))
      .Set("system_comment", Str(""))
      .Set("time_limit",
           TimeLimitMinutes(job) >= 0 ? JsonValue::Int(TimeLimitMinutes(job)) : JsonValue::Null())
      .Set("time_minimum", JsonValue::Int(0))
      .Set("threads_per_core", JsonValue::Null())
      .Set("tres_bind", Str(spec.gpu_bind().empty() ? "" : "gpu:" + spec.gpu_bind()))
      .Set("tres_freq", Str(""))
      .Set("tres_per_job", Str(EmptyForNA(output::TresPerJob(spec))))
      .Set("tres_per_node", Str(EmptyForNA(output::TresPerNode(spec))))
      .Set("tres_per_socket", Str(""))
      .Set("tres_per_task", Str(EmptyForNA(output::TresPerTask(spec))))
      .Set("tres_req_str", Str(RequestedTres(job)))
      .Set("tres_alloc_str", Str(started ? tres_alloc->value(row, c) : ""))
      .Set("user_id", JsonValue::Int(job.user_id()))
      .Set("user_name", Str(UserNameOf(job)))
      .Set("wckey", Str(spec.wckey()))
      .Set("current_working_directory", Str(spec.work_dir()));
  return o;
}

}  // namespace

std::string RenderJson(const canopy::v1::ListJobsResponse& jobs, const FieldContext& context) {
  SqueueOptions everything;
  everything.all_states = true;
  JsonValue list = JsonValue::Array();
  for (const JobRow& row : SelectJobRows(everything, jobs)) {
    list.Push(JobObject(row, context));
  }
  JsonValue document =
      JsonValue::Object()
          .Set("meta",
               JsonValue::Object()
                   .Set("plugin", JsonValue::Object()
                                      .Set("type", Str("openapi/v0.0.38"))
                                      .Set("name", Str("Slurm OpenAPI v0.0.38")))
                   .Set("Slurm", JsonValue::Object()
                                     .Set("version", JsonValue::Object()
                                                         .Set("major", JsonValue::Int(22))
                                                         .Set("micro", JsonValue::Int(8))
                                                         .Set("minor", JsonValue::Int(5)))
                                     .Set("release", Str(std::string(slurm::kSlurmRelease)))))
          .Set("errors", JsonValue::Array())
          .Set("jobs", std::move(list));
  return document.Pretty() + "\n";
}

}  // namespace canopy::ctl::squeue
