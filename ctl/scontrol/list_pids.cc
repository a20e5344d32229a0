#include "ctl/scontrol/list_pids.h"

#include <dirent.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <tuple>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace canopy::ctl::scontrol {
namespace {

// The NUL-separated environment of a process; nullopt when it cannot be read (another user's
// process, a kernel thread, a process that is gone).
std::optional<std::map<std::string, std::string, std::less<>>> ReadEnviron(const std::string& dir) {
  std::ifstream in(dir + "/environ", std::ios::binary);
  if (!in) {
    return std::nullopt;
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) {
    return std::nullopt;
  }
  std::map<std::string, std::string, std::less<>> env;
  for (absl::string_view entry : absl::StrSplit(text, '\0', absl::SkipEmpty())) {
    const size_t eq = entry.find('=');
    if (eq != absl::string_view::npos && absl::StartsWith(entry, "SLURM")) {
      env.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
    }
  }
  return env;
}

// The session id from /proc/PID/stat (field 6; the command name in field 2 may hold spaces and
// parentheses, so fields are counted after its last ')').
std::optional<pid_t> SessionOf(const std::string& dir) {
  std::ifstream in(dir + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) {
    return std::nullopt;
  }
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) {
    return std::nullopt;
  }
  std::vector<absl::string_view> fields =
      absl::StrSplit(absl::string_view(stat).substr(close + 1), ' ', absl::SkipEmpty());
  int session = 0;
  // After ')': state, ppid, pgrp, session.
  if (fields.size() < 4 || !absl::SimpleAtoi(fields[3], &session)) {
    return std::nullopt;
  }
  return session;
}

std::optional<int> IntValue(const std::map<std::string, std::string, std::less<>>& env,
                            absl::string_view key) {
  auto it = env.find(key);
  int value = 0;
  if (it == env.end() || !absl::SimpleAtoi(it->second, &value)) {
    return std::nullopt;
  }
  return value;
}

// Slurm's _parse_jobid: digits only, up to an optional ".STEP".
std::optional<uint32_t> ParseJobPart(absl::string_view text) {
  const absl::string_view id = text.substr(0, text.find('.'));
  uint32_t value = 0;
  if (id.empty() ||
      !std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      !absl::SimpleAtoi(id, &value)) {
    return std::nullopt;
  }
  return value;
}

std::string StepText(const JobProcess& p) {
  return p.step_id.has_value() ? absl::StrCat(*p.step_id) : "batch";
}

std::string OptionalText(const std::optional<int>& v) {
  return v.has_value() ? absl::StrCat(*v) : "-";
}

// Jobs by id, then the batch step, then steps by id; tasks by local id, then other processes.
bool ListOrder(const JobProcess& a, const JobProcess& b) {
  auto key = [](const JobProcess& p) {
    return std::make_tuple(p.job_id, p.step_id.has_value(), p.step_id.value_or(0),
                           !p.local_id.has_value(), p.local_id.value_or(0), p.pid);
  };
  return key(a) < key(b);
}

}  // namespace

std::vector<JobProcess> ReadJobProcesses(const std::string& proc_root) {
  std::vector<JobProcess> found;
  std::unique_ptr<DIR, int (*)(DIR*)> dir(opendir(proc_root.c_str()), closedir);
  if (dir == nullptr) {
    return found;
  }
  while (const dirent* entry = readdir(dir.get())) {
    int pid = 0;
    if (!absl::SimpleAtoi(entry->d_name, &pid) || pid <= 0) {
      continue;
    }
    const std::string path = absl::StrCat(proc_root, "/", entry->d_name);
    std::optional<std::map<std::string, std::string, std::less<>>> env = ReadEnviron(path);
    if (!env.has_value()) {
      continue;
    }
    std::optional<int> job = IntValue(*env, "SLURM_JOB_ID");
    if (!job.has_value() || *job <= 0) {
      continue;
    }
    JobProcess p;
    p.pid = pid;
    p.job_id = static_cast<uint32_t>(*job);
    if (std::optional<int> step = IntValue(*env, "SLURM_STEP_ID"); step && *step >= 0) {
      p.step_id = static_cast<uint32_t>(*step);
    }
    if (auto node = env->find("SLURMD_NODENAME"); node != env->end()) {
      p.node = node->second;
    }
    if (auto cluster = env->find("SLURM_CLUSTER_NAME"); cluster != env->end()) {
      p.cluster = cluster->second;
    }
    // The agent starts every task (and the batch script) as a session leader.
    if (SessionOf(path) == pid) {
      p.local_id = IntValue(*env, "SLURM_LOCALID");
      p.global_id = IntValue(*env, "SLURM_PROCID");
    }
    found.push_back(std::move(p));
  }
  return found;
}

int ListPids(const std::vector<std::string>& args, const std::vector<JobProcess>& processes,
             const ListPidsScope& scope, std::ostream& out, std::ostream& err) {
  ListPidsQuery query;
  const std::string id_arg = args.empty() ? "*" : args[0];
  if (args.size() > 1) {
    query.node = args[1];
  }
  bool bad_step = false;
  if (id_arg != "*" && !id_arg.empty() && id_arg[0] != '*') {
    query.job_id = ParseJobPart(id_arg);
    if (!query.job_id.has_value()) {
      err << "\"" << id_arg << "\" does not look like a jobid\n";
      return 1;
    }
    if (const size_t dot = id_arg.find('.'); dot != std::string::npos) {
      uint32_t step = 0;
      const std::string step_text = id_arg.substr(dot + 1);
      if (step_text.empty() ||
          !std::all_of(step_text.begin(), step_text.end(),
                       [](char c) { return c >= '0' && c <= '9'; }) ||
          !absl::SimpleAtoi(step_text, &step)) {
        bad_step = true;  // Slurm prints the header, then the complaint, and exits 0
      } else {
        query.step_id = step;
      }
    }
  }
  out << absl::StrFormat("%-8s %-8s %-8s %-7s %-8s\n", "PID", "JOBID", "STEPID", "LOCALID",
                         "GLOBALID");
  if (bad_step) {
    err << "\"" << id_arg << "\" does not look like a stepid\n";
    return 0;
  }
  std::vector<JobProcess> shown;
  const std::string& node = query.node.empty() ? scope.node : query.node;
  for (const JobProcess& p : processes) {
    if ((!node.empty() && p.node != node) ||
        (!scope.cluster.empty() && p.cluster != scope.cluster) ||
        (query.job_id.has_value() && p.job_id != *query.job_id) ||
        (query.step_id.has_value() && p.step_id != query.step_id)) {
      continue;
    }
    shown.push_back(p);
  }
  const std::string node_text = query.node.empty() ? "(null)" : query.node;
  if (shown.empty()) {
    if (!query.job_id.has_value()) {
      err << "No job steps exist on this node.\n";
    } else if (query.step_id.has_value()) {
      err << "StepId=" << *query.job_id << "." << *query.step_id << " does not exist on node "
          << node_text << ".\n";
    } else if (!query.node.empty()) {
      err << "JobId=" << *query.job_id << " does not exist on node " << node_text << ".\n";
    } else {
      err << "There are no steps for job " << *query.job_id << " on node " << node_text << ".\n";
    }
    return 1;
  }
  std::sort(shown.begin(), shown.end(), ListOrder);
  for (const JobProcess& p : shown) {
    out << absl::StrFormat("%-8d %-8u %-8s %-7s %-8s\n", p.pid, p.job_id, StepText(p),
                           OptionalText(p.local_id), OptionalText(p.global_id));
  }
  return 0;
}

}  // namespace canopy::ctl::scontrol
