#include "ctl/sbatch/job_spec.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/slurm/begin_time.h"
#include "common/slurm/dependency.h"
#include "common/slurm/option_values.h"

namespace canopy::ctl::sbatch {
namespace {

void SetDuration(absl::Duration d, google::protobuf::Duration& out) {
  out.set_seconds(absl::ToInt64Seconds(d));
}

std::string ResolvePath(const std::string& path, const std::string& cwd) {
  if (path.empty() || path[0] == '/') {
    return path;
  }
  return absl::StrCat(cwd, cwd.empty() || cwd.back() == '/' ? "" : "/", path);
}

canopy::v1::JobDependency::Type WireType(slurm::DependencyType type) {
  switch (type) {
    case slurm::DependencyType::kAfter:
      return canopy::v1::JobDependency::TYPE_AFTER;
    case slurm::DependencyType::kAfterAny:
      return canopy::v1::JobDependency::TYPE_AFTER_ANY;
    case slurm::DependencyType::kAfterOk:
      return canopy::v1::JobDependency::TYPE_AFTER_OK;
    case slurm::DependencyType::kAfterNotOk:
      return canopy::v1::JobDependency::TYPE_AFTER_NOT_OK;
    case slurm::DependencyType::kAfterCorr:
      return canopy::v1::JobDependency::TYPE_AFTER_CORR;
    case slurm::DependencyType::kSingleton:
      return canopy::v1::JobDependency::TYPE_SINGLETON;
  }
  return canopy::v1::JobDependency::TYPE_UNSPECIFIED;
}

// --dependency into the spec. canopyd checks that the jobs exist.
absl::Status ApplyDependency(const std::string& text, canopy::v1::JobSpec& spec) {
  absl::StatusOr<slurm::DependencyList> list = slurm::ParseDependency(text);
  if (!list.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("error: ", list.status().message(),
                     "\nerror: Batch job submission failed: Job dependency problem"));
  }
  for (const slurm::DependencyItem& item : list->items) {
    canopy::v1::JobDependency* d = spec.add_dependencies();
    d->set_type(WireType(item.type));
    d->set_job_id(item.job_id);
    if (item.task_id.has_value()) {
      d->set_array_task_id(*item.task_id);
    }
    if (item.minutes > 0) {
      SetDuration(absl::Minutes(item.minutes), *d->mutable_delay());
    }
  }
  spec.set_dependency_any(list->any);
  return absl::OkStatus();
}

}  // namespace

std::string WrapScript(const std::string& command) {
  // Exactly what sbatch 22.05 writes for --wrap (the comment line included).
  return absl::StrCat("#!/bin/sh\n# This script was created by sbatch --wrap.\n\n", command, "\n");
}

void ApplyExport(const std::optional<slurm::SbatchExport>& export_env,
                 const std::map<std::string, std::string>& env, canopy::v1::JobSpec& spec) {
  slurm::ExportedEnvironment exported = slurm::ExportEnvironment(export_env, env);
  spec.mutable_environment()->clear();
  spec.mutable_environment()->insert(exported.variables.begin(), exported.variables.end());
  spec.set_export_none(exported.none);
}

absl::StatusOr<canopy::v1::JobSpec> BuildJobSpec(const slurm::SbatchOptions& o,
                                                 const SubmitContext& context) {
  if (!o.other_gres.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "error: Invalid generic resource (gres) specification: ", absl::StrJoin(o.other_gres, ","),
        " (Canopy schedules GPUs only)"));
  }
  canopy::v1::JobSpec spec;
  spec.set_name(o.job_name.empty() ? context.default_name : o.job_name);
  spec.set_partition(o.partition);
  spec.set_account(o.account);
  spec.set_qos(o.qos);
  if (o.min_nodes) {
    spec.set_min_nodes(static_cast<int32_t>(*o.min_nodes));
  }
  if (o.max_nodes && o.max_nodes != o.min_nodes) {
    spec.set_max_nodes(static_cast<int32_t>(*o.max_nodes));
  }
  if (o.ntasks) {
    spec.set_ntasks(static_cast<int32_t>(*o.ntasks));
  }
  if (o.ntasks_per_node) {
    spec.set_ntasks_per_node(static_cast<int32_t>(*o.ntasks_per_node));
  }
  if (o.cpus_per_task) {
    spec.set_cpus_per_task(static_cast<int32_t>(*o.cpus_per_task));
  }
  if (o.mem_per_node_mib) {
    spec.set_mem_per_node_mib(*o.mem_per_node_mib);
  }
  if (o.gpus_per_node) {
    spec.set_gpus_per_node(static_cast<int32_t>(*o.gpus_per_node));
  } else if (o.gpus_total) {
    // JobSpec has no per-job GPU count: spread --gpus over the requested nodes (rounding up).
    const int64_t nodes = o.min_nodes.value_or(1) > 0 ? o.min_nodes.value_or(1) : 1;
    spec.set_gpus_per_node(static_cast<int32_t>((*o.gpus_total + nodes - 1) / nodes));
  }
  spec.set_gpu_type(o.gpu_type);
  spec.set_exclusive(o.exclusive != slurm::ExclusiveMode::kUnset);
  // An infinite --time (0, UNLIMITED) cannot be told apart from "unset" in JobSpec; it is left
  // unset, which gives the partition's limit.
  if (o.time_limit && *o.time_limit != absl::InfiniteDuration()) {
    SetDuration(*o.time_limit, *spec.mutable_time_limit());
  }
  if (o.switches) {
    spec.set_max_switches(static_cast<int32_t>(*o.switches));
  }
  if (o.switches_wait) {
    SetDuration(*o.switches_wait, *spec.mutable_switches_wait());
  }
  spec.set_required_nodes(o.nodelist);
  spec.set_excluded_nodes(o.exclude);
  spec.set_script(context.script);
  for (const std::string& a : o.script_args) {
    spec.add_argv(a);
  }
  ApplyExport(o.export_env, context.env, spec);
  spec.set_work_dir(o.chdir.empty() ? context.cwd : ResolvePath(o.chdir, context.cwd));
  spec.set_stdout_path(o.output);
  spec.set_stderr_path(o.error);
  spec.set_open_append(o.open_mode == slurm::OpenMode::kAppend);
  // Slurm's default is JobRequeue=1: batch jobs may be requeued unless --no-requeue.
  spec.set_requeue(o.requeue.value_or(true));
  spec.set_hold(o.hold);
  spec.set_submit_host(context.short_hostname);
  if (o.nice) {
    spec.set_nice(static_cast<int32_t>(*o.nice));
  }
  spec.set_submit_dir(context.cwd);
  spec.set_array_spec(o.array);
  if (o.signal) {
    spec.set_warn_signal(o.signal->signal_number);
    spec.mutable_warn_time()->set_seconds(o.signal->seconds);
    spec.set_warn_batch_only(o.signal->batch_only);
  }
  spec.set_stdin_path(o.input);
  if (!o.dependency.empty()) {
    if (absl::Status s = ApplyDependency(o.dependency, spec); !s.ok()) {
      return s;
    }
  }
  if (o.kill_on_invalid_dep.has_value()) {
    spec.set_kill_on_invalid_dep(*o.kill_on_invalid_dep);
  }
  if (!o.begin.empty()) {
    absl::StatusOr<absl::Time> begin = slurm::ParseBeginTime(o.begin, context.now, context.tz);
    if (!begin.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("error: Invalid --begin specification: ", begin.status().message()));
    }
    spec.mutable_begin_time()->set_seconds(absl::ToUnixSeconds(*begin));
  }
  return spec;
}

}  // namespace canopy::ctl::sbatch
