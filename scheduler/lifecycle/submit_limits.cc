// Submit limits (submit_limits.h).
#include "scheduler/lifecycle/submit_limits.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "scheduler/limits/association_limits.h"

namespace canopy::lifecycle {
namespace {

// Slurm's words for a field over its limit (ESLURM_PATHNAME_TOO_LONG), which sbatch prints.
constexpr absl::string_view kTooLong =
    "Batch job submission failed: Pathname of a file, directory or other parameter too long";
// Slurm's _test_job_desc_fields sizes; MAXPATHLEN for paths.
constexpr size_t kNameBytes = 1024;
constexpr size_t kPathBytes = 4096;
constexpr size_t kListBytes = 128 * 1024;
// execve refuses a single argument or environment string of 32 pages (MAX_ARG_STRLEN) or more.
constexpr size_t kExecStringBytes = 128 * 1024;
constexpr size_t kExecTotalBytes = 4 * 1024 * 1024;
// Slurm bounds --dependency at 128 KiB of text; an item is at least 8 bytes ("after:1,").
constexpr size_t kMaxDependencyItems = 16384;

absl::Status TooLong(absl::string_view field, size_t size, size_t limit) {
  return absl::InvalidArgumentError(
      absl::StrCat(field, " is ", size, " bytes, more than the ", limit, " allowed\n", kTooLong));
}

absl::Status CheckField(absl::string_view field, const std::string& value, size_t limit) {
  return value.size() > limit ? TooLong(field, value.size(), limit) : absl::OkStatus();
}

// What execve can pass: each string under MAX_ARG_STRLEN, and not too much in all.
absl::Status CheckExecSizes(const std::vector<std::string>& argv,
                            const std::map<std::string, std::string>& environment) {
  size_t total = 0;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i].size() >= kExecStringBytes) {
      return TooLong(absl::StrCat("argument ", i + 1), argv[i].size(), kExecStringBytes - 1);
    }
    total += argv[i].size() + 1;
  }
  for (const auto& [key, value] : environment) {
    if (key.size() + value.size() + 1 >= kExecStringBytes) {
      return TooLong(absl::StrCat("environment variable ", key.substr(0, 64)),
                     key.size() + value.size() + 1, kExecStringBytes - 1);
    }
    total += key.size() + value.size() + 2;
  }
  if (total > kExecTotalBytes) {
    return TooLong("the arguments and environment together", total, kExecTotalBytes);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckEditedText(absl::string_view field, const std::string& value) {
  return CheckField(field, value, kNameBytes);
}

absl::Status CheckStepSizes(const std::string& name, const std::vector<std::string>& argv,
                            const std::map<std::string, std::string>& environment) {
  if (absl::Status s = CheckField("step name", name, kNameBytes); !s.ok()) {
    return s;
  }
  return CheckExecSizes(argv, environment);
}

absl::Status CheckRequestSizes(const core::JobSpec& spec, const config::ClusterConfig& config) {
  const int64_t max_script = config.scheduling.scheduler.parameters.max_script_size;
  if (static_cast<int64_t>(spec.script.size()) > max_script) {
    return absl::InvalidArgumentError(
        absl::StrCat("the batch script is ", spec.script.size(), " bytes, more than the ",
                     max_script, " allowed (SchedulerParameters max_script_size)\n", kTooLong));
  }
  const struct {
    absl::string_view field;
    const std::string& value;
    size_t limit;
  } fields[] = {
      {"job name", spec.name, kNameBytes},
      {"partition", spec.partition, kNameBytes},
      {"account", spec.account, kNameBytes},
      {"qos", spec.qos, kNameBytes},
      {"comment", spec.comment, kNameBytes},
      {"gpu type", spec.gpu_type, kNameBytes},
      {"wckey", spec.wckey, kNameBytes},
      {"mail type", spec.mail_type, kNameBytes},
      {"mail user", spec.mail_user, kNameBytes},
      {"reservation", spec.reservation, kNameBytes},
      {"container", spec.container, kPathBytes},
      {"gpu bind", spec.gpu_bind, kNameBytes},
      {"exclusive mode", spec.exclusive_mode, kNameBytes},
      {"submit host", spec.submit_host, kNameBytes},
      {"working directory", spec.work_dir, kPathBytes},
      {"submit directory", spec.submit_dir, kPathBytes},
      {"output path", spec.stdout_path, kPathBytes},
      {"error path", spec.stderr_path, kPathBytes},
      {"input path", spec.stdin_path, kPathBytes},
      {"array specification", spec.array_spec, kPathBytes},
      {"node list", spec.required_nodes, kListBytes},
      {"excluded node list", spec.excluded_nodes, kListBytes},
  };
  for (const auto& f : fields) {
    if (absl::Status s = CheckField(f.field, f.value, f.limit); !s.ok()) {
      return s;
    }
  }
  if (spec.dependencies.size() > kMaxDependencyItems) {
    return absl::InvalidArgumentError(
        absl::StrCat("the dependency lists ", spec.dependencies.size(), " jobs, more than the ",
                     kMaxDependencyItems, " allowed\n", kTooLong));
  }
  return CheckExecSizes(spec.argv, spec.environment);
}

absl::Status CheckJobCount(const LifecycleState& s, size_t new_jobs) {
  const int64_t max = s.config->scheduling.scheduler.max_job_count;
  const int64_t held = static_cast<int64_t>(s.jobs.size());
  // Slurm refuses when the count would reach MaxJobCount, not pass it.
  if (held + static_cast<int64_t>(new_jobs) >= max) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "Resource temporarily unavailable (MaxJobCount=", max, " reached: canopyd holds ", held,
        " jobs, finished ones until MinJobAge, and this submission adds ", new_jobs, ")"));
  }
  return absl::OkStatus();
}

absl::Status CheckScriptMemory(const LifecycleState& s) {
  const int64_t max_mib = s.config->scheduling.scheduler.max_script_memory_mib;
  const int64_t held = core::SharedTextBytes();
  if (held > max_mib * 1024 * 1024) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "Resource temporarily unavailable (the batch scripts and environments canopyd holds would "
        "take ",
        (held + 1024 * 1024 - 1) / (1024 * 1024), " MiB with this submission, more than its ",
        max_mib,
        " MiB (scheduler.max_script_memory_mib): wait for jobs to end, or submit many jobs "
        "with one script as an array, whose tasks share it)"));
  }
  return absl::OkStatus();
}

absl::Status CheckSubmitJobsLimit(const LifecycleState& s, const Caller& caller,
                                  const std::string& account, size_t new_jobs) {
  const limits::LimitRules& rules = s.limit_usage.rules();
  if (!rules.enforce) {
    return absl::OkStatus();
  }
  const int32_t association = rules.tree->FindUser(caller.user_name, account);
  if (association < 0) {
    return absl::OkStatus();
  }
  const int64_t max = rules.associations[association].max_submit_jobs;
  if (max < 0) {
    return absl::OkStatus();
  }
  // Only sites that set MaxSubmitJobs pay for this count, which covers the jobs in memory.
  int64_t used = 0;
  for (const auto& [id, other] : s.jobs.jobs()) {
    if (!core::IsTerminal(other->state) && other->user_id == caller.uid &&
        other->spec->account == account) {
      ++used;
    }
  }
  if (used + static_cast<int64_t>(new_jobs) > max) {
    return absl::InvalidArgumentError(absl::StrCat(
        "AssocMaxSubmitJobLimit (user ", caller.user_name, " in account ", account,
        ": MaxSubmitJobs=", max, ", ", used, " pending or running, ", new_jobs,
        " more asked)\nBatch job submission failed: Job violates accounting/QOS policy (job "
        "submit limit, user's size and/or time limits)"));
  }
  return absl::OkStatus();
}

}  // namespace canopy::lifecycle
