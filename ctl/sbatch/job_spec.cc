#include "ctl/sbatch/job_spec.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/slurm/begin_time.h"
#include "common/slurm/dependency.h"
#include "common/slurm/job_environment.h"
#include "common/slurm/option_values.h"
#include "common/slurm/recorded_option_values.h"
#include "ctl/client/wire_dependency.h"
#include "ctl/sbatch/job_variables.h"
#include "ctl/sbatch/script_path.h"

namespace canopy::ctl::sbatch {
namespace {

void SetDuration(absl::Duration d, google::protobuf::Duration& out) {
  out.set_seconds(absl::ToInt64Seconds(d));
}

// --dependency into the spec. canopyd checks that the jobs exist.
absl::Status ApplyDependency(const std::string& text, canopy::v1::JobSpec& spec) {
  absl::StatusOr<slurm::DependencyList> list = slurm::ParseDependency(text);
  if (!list.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("error: ", list.status().message(),
                     "\nerror: Batch job submission failed: Job dependency problem"));
  }
  client::AppendWireDependencies(*list, *spec.mutable_dependencies());
  spec.set_dependency_any(list->any);
  return absl::OkStatus();
}

absl::Status SbatchError(absl::string_view line, int exit_code) {
  return slurm::WithExitCode(absl::InvalidArgumentError(absl::StrCat("error: ", line)), exit_code);
}

// The options Slurm records but Canopy does not act on (see types.proto), and --uid/--gid.
absl::Status ApplyRecordedOptions(const slurm::SbatchOptions& o, const SubmitContext& context,
                                  canopy::v1::JobSpec& spec) {
  spec.set_comment(o.comment);
  spec.set_wckey(o.wckey);
  if (o.mail_type) {
    spec.set_mail_type(slurm::MailTypeString(*o.mail_type));
  }
  spec.set_mail_user(o.mail_user);
  spec.set_reservation(o.reservation);
  if (o.delay_boot && *o.delay_boot != absl::InfiniteDuration()) {
    SetDuration(*o.delay_boot, *spec.mutable_delay_boot());
  }
  spec.set_container(o.container);
  if (o.cpus_per_gpu) {
    spec.set_cpus_per_gpu(static_cast<int32_t>(*o.cpus_per_gpu));
  }
  spec.set_gpu_bind(o.gpu_bind);
  spec.set_overcommit(o.overcommit);
  spec.set_exclusive_mode(std::string(slurm::ExclusiveModeName(o.exclusive)));
  auto none = [](const std::string&) { return std::optional<uint32_t>(); };
  if (!o.uid.empty()) {
    absl::StatusOr<uint32_t> uid =
        context.lookup_user
            ? slurm::ResolveRunAs(o.uid, "uid", context.caller_uid, context.lookup_user)
            : slurm::ResolveRunAs(o.uid, "uid", context.caller_uid, none);
    if (!uid.ok()) {
      return uid.status();
    }
    spec.set_run_as_uid(*uid);
  }
  if (!o.gid.empty()) {
    absl::StatusOr<uint32_t> gid =
        context.lookup_group
            ? slurm::ResolveRunAs(o.gid, "gid", context.caller_uid, context.lookup_group)
            : slurm::ResolveRunAs(o.gid, "gid", context.caller_uid, none);
    if (!gid.ok()) {
      return gid.status();
    }
    spec.set_run_as_gid(*gid);
  }
  if (!o.get_user_env && o.propagate) {
    if (absl::Status s = slurm::CheckPropagate(*o.propagate); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

// --begin and --deadline, which need the present moment.
absl::Status ApplyTimes(const slurm::SbatchOptions& o, const SubmitContext& context,
                        canopy::v1::JobSpec& spec) {
  std::optional<absl::Time> begin;
  if (!o.begin.empty()) {
    absl::StatusOr<absl::Time> t = slurm::ParseBeginTime(o.begin, context.now, context.tz);
    if (!t.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("error: Invalid --begin specification: ", t.status().message()));
    }
    begin = *t;
    spec.mutable_begin_time()->set_seconds(absl::ToUnixSeconds(*t));
  }
  if (!o.deadline.empty()) {
    absl::StatusOr<absl::Time> deadline = slurm::ParseDeadline(o.deadline, context.now, context.tz);
    if (!deadline.ok()) {
      return slurm::WithExitCode(deadline.status(), 255);
    }
    if (begin && *deadline < *begin) {
      return SbatchError("Incompatible begin and deadline time specification", 1);
    }
    spec.mutable_deadline()->set_seconds(absl::ToUnixSeconds(*deadline));
  }
  return absl::OkStatus();
}

}  // namespace

std::map<std::string, std::string> ParseExportFile(const std::string& content) {
  const char separator = content.find('\0') != std::string::npos ? '\0' : '\n';
  std::map<std::string, std::string> vars;
  for (absl::string_view entry : absl::StrSplit(content, separator, absl::SkipEmpty())) {
    const size_t eq = entry.find('=');
    if (eq == absl::string_view::npos || eq == 0) {
      continue;
    }
    vars[std::string(entry.substr(0, eq))] = std::string(entry.substr(eq + 1));
  }
  return vars;
}

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
  if (o.max_nodes.has_value() && *o.max_nodes == 0) {
    // -N 0: slurmctld refuses a batch job of no node (the wire's 0 would mean "1" here).
    return absl::InvalidArgumentError(
        "error: Batch job submission failed: Node count specification invalid");
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
  if (o.gpus_total) {
    spec.set_gpus_per_job(static_cast<int32_t>(*o.gpus_total));  // shown as TresPerJob
  }
  if (o.gpus_per_node) {
    spec.set_gpus_per_node(static_cast<int32_t>(*o.gpus_per_node));
    spec.set_gpus_per_node_requested(true);
  } else if (o.gpus_total) {
    // Placement counts GPUs per node: spread --gpus over the requested nodes (rounding up).
    const int64_t nodes = o.min_nodes.value_or(1) > 0 ? o.min_nodes.value_or(1) : 1;
    spec.set_gpus_per_node(static_cast<int32_t>((*o.gpus_total + nodes - 1) / nodes));
  } else if (o.gpus_per_task) {
    spec.set_gpus_per_node(static_cast<int32_t>(slurm::GpusPerNodeForTasks(
        *o.gpus_per_task, o.ntasks, o.ntasks_per_node, o.min_nodes.value_or(1))));
  }
  if (o.gpus_per_task) {
    spec.set_gpus_per_task(static_cast<int32_t>(*o.gpus_per_task));
  }
  if (o.mem_per_gpu_mib) {
    spec.set_mem_per_gpu_mib(*o.mem_per_gpu_mib);
    if (spec.gpus_per_node() > 0) {
      spec.set_mem_per_node_mib(*o.mem_per_gpu_mib * spec.gpus_per_node());
    }
  }
  spec.set_gpu_type(o.gpu_type);
  spec.set_exclusive(slurm::ExclusiveNodes(o.exclusive));
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
  // An enclosing job's own variables in sbatch's environment (sbatch run inside a job) are not
  // this job's; a value the --export list or an --export-file names is.
  std::map<std::string, std::string> inherited = context.env;
  std::erase_if(inherited, [](const auto& entry) { return slurm::IsJobOwnVariable(entry.first); });
  ApplyExport(o.export_env, context.export_file_env.value_or(inherited), spec);
  // Any --export but plain ALL (NONE, a list, a list with ALL in it): the job and its steps see
  // what was asked, and the node loads the user's login environment underneath, as with Slurm
  // 22.05's sbatch on this machine.
  const bool export_filtered =
      o.export_env.has_value() && !absl::EqualsIgnoreCase(o.export_env->text, "ALL");
  if (export_filtered) {
    (*spec.mutable_environment())["SLURM_EXPORT_ENV"] = o.export_env->text;
  }
  if (o.get_user_env || export_filtered) {
    // assign(1, '1'): GCC 12 sees a false -Wrestrict overlap in operator=("1") here.
    (*spec.mutable_environment())["SLURM_GET_USER_ENV"].assign(1, '1');
  }
  AddSbatchVariables(o, context.prio_process, spec);
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
  if (absl::Status s = ApplyTimes(o, context, spec); !s.ok()) {
    return s;
  }
  if (absl::Status s = ApplyRecordedOptions(o, context, spec); !s.ok()) {
    return s;
  }
  return spec;
}

}  // namespace canopy::ctl::sbatch
