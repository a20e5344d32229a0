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

// "I:REST" of a per-task flag: the task's local id and the rest.
absl::Status TaskPart(const std::string& flag, const std::string& value, size_t& index,
                      std::string& rest) {
  const size_t colon = value.find(':');
  if (colon == std::string::npos || !absl::SimpleAtoi(value.substr(0, colon), &index) ||
      index == 0 || index > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--", flag, ": expected LOCAL_ID:..., with a local id from 1, got '", value, "'"));
  }
  rest = value.substr(colon + 1);
  return absl::OkStatus();
}

absl::Status TaskStreamOf(const std::string& flag, const std::string& rest, bool is_err,
                          SpankTaskArgs::TaskStream& stream) {
  if (is_err && rest == "stdout") {
    stream.to_stdout = true;
    return absl::OkStatus();
  }
  const size_t colon = rest.find(':');
  const std::string kind = rest.substr(0, colon);
  const std::string what = colon == std::string::npos ? "" : rest.substr(colon + 1);
  if (kind == "fd" && absl::SimpleAtoi(what, &stream.fd) && stream.fd > 2) {
    return absl::OkStatus();
  }
  if ((kind == "append" || kind == "truncate") && !what.empty()) {
    stream.path = what;
    stream.append = kind == "append";
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--", flag, ": expected I:fd:N, I:append:PATH, I:truncate:PATH",
                   is_err ? " or I:stdout" : "", ", got '", rest, "'"));
}

}  // namespace

absl::StatusOr<SpankTaskArgs> ParseSpankTaskArgs(const std::vector<std::string>& args) {
  SpankTaskArgs out;
  JobItems& job = out.items;
  auto other = [&out](size_t i) -> SpankTaskArgs::OtherTask& {
    if (out.other_tasks.size() <= i) {
      out.other_tasks.resize(i + 1);
    }
    return out.other_tasks[i];
  };
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
      {"exits-fd",
       [&](const std::string& f, const std::string& v) { return Number(f, v, out.exits_fd); }},
      {"task-env",
       [&](const std::string& f, const std::string& v) {
         size_t i = 0;
         std::string rest;
         if (absl::Status s = TaskPart(f, v, i, rest); !s.ok()) {
           return s;
         }
         other(i).set_env.push_back(rest);
         return absl::OkStatus();
       }},
      {"task-unset",
       [&](const std::string& f, const std::string& v) {
         size_t i = 0;
         std::string rest;
         if (absl::Status s = TaskPart(f, v, i, rest); !s.ok()) {
           return s;
         }
         other(i).unset_env.push_back(rest);
         return absl::OkStatus();
       }},
      {"task-stdout",
       [&](const std::string& f, const std::string& v) {
         size_t i = 0;
         std::string rest;
         if (absl::Status s = TaskPart(f, v, i, rest); !s.ok()) {
           return s;
         }
         return TaskStreamOf(f, rest, false, other(i).out);
       }},
      {"task-stderr",
       [&](const std::string& f, const std::string& v) {
         size_t i = 0;
         std::string rest;
         if (absl::Status s = TaskPart(f, v, i, rest); !s.ok()) {
           return s;
         }
         return TaskStreamOf(f, rest, true, other(i).err);
       }},
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
    if (arg == "--all-tasks") {
      out.all_tasks = true;
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
  if (out.all_tasks) {
    const size_t n = job.global_task_ids.size();
    if (n == 0 || out.exits_fd < 0) {
      return absl::InvalidArgumentError(
          "--all-tasks: needs --local-tasks, --global-task-ids and --exits-fd");
    }
    if (out.other_tasks.size() > n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "a per-task flag names local id ", out.other_tasks.size() - 1, " of ", n, " tasks"));
    }
    out.other_tasks.resize(n);
    for (size_t i = 1; i < n; ++i) {
      const SpankTaskArgs::OtherTask& t = out.other_tasks[i];
      if ((t.out.fd < 0 && t.out.path.empty()) ||
          (t.err.fd < 0 && t.err.path.empty() && !t.err.to_stdout)) {
        return absl::InvalidArgumentError(
            absl::StrCat("task ", i, ": --task-stdout and --task-stderr are required"));
      }
    }
  }
  if (out.uid.has_value()) {
    job.uid = out.uid;
    job.gid = out.gid;
  }
  return out;
}

}  // namespace canopy::spank
