#include "plugins/spank/spank_task_args.h"

#include <functional>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace canopy::spank {
namespace {

template <typename T>
absl::Status Number(const std::string& flag, const std::string& value, T& out) {
  uint64_t n = 0;
  if (!absl::SimpleAtoi(value, &n) || n > static_cast<uint64_t>(static_cast<T>(~T{0}))) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": expected a number, got '", value, "'"));
  }
  out = static_cast<T>(n);
  return absl::OkStatus();
}

template <typename T>
absl::Status Optional(const std::string& flag, const std::string& value, std::optional<T>& out) {
  T n{};
  if (absl::Status s = Number(flag, value, n); !s.ok()) {
    return s;
  }
  out = n;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SpankTaskArgs> ParseSpankTaskArgs(const std::vector<std::string>& args) {
  SpankTaskArgs out;
  JobItems& job = out.items;
  using Setter = std::function<absl::Status(const std::string& flag, const std::string& value)>;
  auto text = [](std::string& field) -> Setter {
    return [&field](const std::string&, const std::string& v) {
      field = v;
      return absl::OkStatus();
    };
  };
  auto u32 = [](std::optional<uint32_t>& field) -> Setter {
    return [&field](const std::string& f, const std::string& v) { return Optional(f, v, field); };
  };
  auto append = [](bool& field) -> Setter {
    return [&field](const std::string& f, const std::string& v) {
      if (v != "append" && v != "truncate") {
        return absl::InvalidArgumentError(
            absl::StrCat("--", f, ": expected append or truncate, got '", v, "'"));
      }
      field = v == "append";
      return absl::OkStatus();
    };
  };
  const std::map<std::string, Setter> flags = {
      {"plugstack", text(out.plugstack)},
      {"job-script",
       [&](const std::string& f, const std::string& v) {
         if (v != "prolog" && v != "epilog") {
           return absl::InvalidArgumentError(
               absl::StrCat("--", f, ": expected prolog or epilog, got '", v, "'"));
         }
         out.job_script = v;
         return absl::OkStatus();
       }},
      {"task-prolog", text(out.task_prolog)},
      {"task-epilog", text(out.task_epilog)},
      {"job-uid",
       [&](const std::string& f, const std::string& v) { return Optional(f, v, job.uid); }},
      {"job-gid",
       [&](const std::string& f, const std::string& v) { return Optional(f, v, job.gid); }},
      {"plugin-dir", text(out.plugin_dirs)},
      {"label", text(out.label)},
      {"work-dir", text(out.work_dir)},
      {"stdin", text(out.stdin_path)},
      {"stdout", text(out.stdout_path)},
      {"stderr", text(out.stderr_path)},
      {"stdout-flags", append(out.stdout_append)},
      {"stderr-flags", append(out.stderr_append)},
      {"uid", [&](const std::string& f, const std::string& v) { return Optional(f, v, out.uid); }},
      {"gid", [&](const std::string& f, const std::string& v) { return Optional(f, v, out.gid); }},
      {"groups",
       [&](const std::string& f, const std::string& v) {
         for (absl::string_view g : absl::StrSplit(v, ',', absl::SkipEmpty())) {
           gid_t gid = 0;
           if (absl::Status s = Number(f, std::string(g), gid); !s.ok()) {
             return s;
           }
           out.groups.push_back(gid);
         }
         job.supplementary_gids = out.groups;
         return absl::OkStatus();
       }},
      {"task-local-id",
       [&](const std::string& f, const std::string& v) { return Number(f, v, out.local_id); }},
      {"job-id", u32(job.job_id)},
      {"step-id", u32(job.step_id)},
      {"nnodes", u32(job.nnodes)},
      {"node-id", u32(job.node_id)},
      {"local-tasks", u32(job.local_task_count)},
      {"total-tasks", u32(job.total_task_count)},
      {"cpus-per-task", u32(job.cpus_per_task)},
      {"restart-count", u32(job.restart_count)},
      {"array-job-id", u32(job.array_job_id)},
      {"array-task-id", u32(job.array_task_id)},
      {"ncpus",
       [&](const std::string& f, const std::string& v) { return Optional(f, v, job.ncpus); }},
      {"job-mem-mb", [&](const std::string& f,
                         const std::string& v) { return Optional(f, v, job.job_alloc_mem_mb); }},
      {"job-cores",
       [&](const std::string&, const std::string& v) {
         job.job_alloc_cores = v;
         return absl::OkStatus();
       }},
      {"global-task-ids",
       [&](const std::string& f, const std::string& v) {
         for (absl::string_view id : absl::StrSplit(v, ',', absl::SkipEmpty())) {
           uint32_t n = 0;
           if (absl::Status s = Number(f, std::string(id), n); !s.ok()) {
             return s;
           }
           job.global_task_ids.push_back(n);
         }
         return absl::OkStatus();
       }},
  };
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg == "--stderr-to-stdout") {
      out.stderr_to_stdout = true;
      continue;
    }
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    auto it = arg.rfind("--", 0) == 0 && eq != std::string::npos ? flags.find(name) : flags.end();
    if (it == flags.end()) {
      return absl::InvalidArgumentError(absl::StrCat("unknown argument '", arg, "'"));
    }
    if (absl::Status s = it->second(name, arg.substr(eq + 1)); !s.ok()) {
      return s;
    }
  }
  out.argv.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  if (out.argv.empty() && out.job_script.empty()) {
    return absl::InvalidArgumentError("no task command line after '--'");
  }
  if (out.uid.has_value() != out.gid.has_value()) {
    return absl::InvalidArgumentError("--uid and --gid: give both or neither");
  }
  if (job.local_task_count.has_value() && job.global_task_ids.size() != *job.local_task_count) {
    return absl::InvalidArgumentError(absl::StrCat("--global-task-ids: expected ",
                                                   *job.local_task_count, " ids (--local-tasks)"));
  }
  job.task_pids.assign(job.global_task_ids.size(), 0);
  if (out.uid.has_value()) {
    job.uid = out.uid;
    job.gid = out.gid;
  }
  return out;
}

}  // namespace canopy::spank
