// squeue -s's step fields (fields.h), with the headers and unset values Slurm 22.05 prints.
#include <string>

#include "absl/strings/str_cat.h"
#include "common/slurm/time_format.h"
#include "ctl/output/job_format.h"
#include "ctl/squeue/fields.h"
#include "ctl/squeue/job_values.h"

namespace canopy::ctl::squeue {
namespace {

using Ctx = FieldContext;

std::string Null(const StepRow&, const Ctx&) { return "(null)"; }

std::string TimeUsed(const StepRow& r, const Ctx& c) {
  const absl::Duration used = c.now - absl::FromUnixSeconds(r.start_seconds);
  return slurm::FormatSlurmDuration(std::max(absl::ZeroDuration(), used));
}

const StepField kStepFields[] = {
    {'b', "tres-per-node", "TRES_PER_JOB", Null},
    {'i', "stepid", "STEPID", [](const StepRow& r, const Ctx&) { return r.id; }},
    {'j', "stepname", "NAME", [](const StepRow& r, const Ctx&) { return r.name; }},
    // Steps have no limit of their own in Canopy.
    {'l', "timelimit", "TIME_LIMIT",
     [](const StepRow&, const Ctx&) -> std::string { return "UNLIMITED"; }},
    {'u', "username", "USER", [](const StepRow& r, const Ctx&) { return UserNameOf(*r.job); }},
    {'A', "numtasks", "TASKS", [](const StepRow& r, const Ctx&) { return absl::StrCat(r.ntasks); }},
    {'M', "timeused", "TIME", TimeUsed},
    {'N', "nodes", "NODELIST", [](const StepRow& r, const Ctx&) { return r.nodes; }},
    {'P', "partition", "PARTITION",
     [](const StepRow& r, const Ctx&) { return PartitionOf(*r.job); }},
    {'S', "starttime", "START_TIME",
     [](const StepRow& r, const Ctx& c) {
       return slurm::FormatSlurmTimestamp(absl::FromUnixSeconds(r.start_seconds), c.tz);
     }},
    {'U', "userid", "UID",
     [](const StepRow& r, const Ctx&) { return absl::StrCat(r.job->user_id()); }},
    // -O only.
    {'\0', "arrayjobid", "ARRAY_JOB_ID",
     [](const StepRow& r, const Ctx&) { return absl::StrCat(r.job->array_job_id()); }},
    {'\0', "arraytaskid", "ARRAY_TASK_ID",
     [](const StepRow& r, const Ctx&) -> std::string {
       return r.job->array_job_id() != 0 ? absl::StrCat(r.job->array_task_id()) : "N/A";
     }},
    // The cluster's name is not in ListJobs' answer.
    {'\0', "cluster", "CLUSTER", Null},
    {'\0', "container", "CONTAINER", Null},
    {'\0', "cpufreq", "CPU_FREQ",
     [](const StepRow&, const Ctx&) -> std::string { return "0-0:0"; }},
    {'\0', "cpus-per-tres", "CPUS_PER_TRES", Null},
    {'\0', "gres", "TRES_PER_JOB", Null},
    {'\0', "jobid", "JOB_ID",
     [](const StepRow& r, const Ctx&) { return absl::StrCat(r.job->job_id()); }},
    {'\0', "mem-per-tres", "MEM_PER_TRES", Null},
    {'\0', "network", "NETWORK", Null},
    {'\0', "numcpus", "NUM_CPUS",
     [](const StepRow& r, const Ctx&) { return absl::StrCat(r.cpus); }},
    {'\0', "resvports", "RESERVED_PORTS", Null},
    {'\0', "stepstate", "STATE",
     [](const StepRow& r, const Ctx&) { return output::JobStateName(r.state); }},
    {'\0', "tres-bind", "TRES_BIND", Null},
    {'\0', "tres-freq", "TRES_FREQ", Null},
    {'\0', "tres-per-job,tres-per-step", "TRES_PER_STEP", Null},
    {'\0', "tres-per-socket", "TRES_PER_SOCKET", Null},
    {'\0', "tres-per-task", "TRES_PER_TASK", Null},
};

}  // namespace

absl::Span<const StepField> StepFields() { return kStepFields; }

}  // namespace canopy::ctl::squeue
