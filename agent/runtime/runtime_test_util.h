// Test helpers for the runtime: a temp dir, a recorder of the runtime's reports, a LaunchJob
// builder, and a liveness check for pids. Test-only.
#pragma once

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "canopy/v1/agent.pb.h"

namespace canopy::agent::runtime::testing {

class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = absl::StrCat(base != nullptr && *base != '\0' ? base : "/tmp",
                                    "/canopy-runtime-test-XXXXXX");
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Collects what the runtime reports; waits for a matching message.
class Recorder {
 public:
  void Add(const canopy::v1::AgentMessage& m) {
    absl::MutexLock lock(&mu_);
    messages_.push_back(m);
  }
  std::vector<canopy::v1::AgentMessage> messages() {
    absl::MutexLock lock(&mu_);
    return messages_;
  }
  // The first job status with this phase for the job; fails the test after `timeout`.
  std::optional<canopy::v1::JobStatus> WaitJob(uint32_t job_id, canopy::v1::JobStatus::Phase phase,
                                               absl::Duration timeout = absl::Seconds(5)) {
    std::optional<canopy::v1::JobStatus> found;
    auto match = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      for (const auto& m : messages_) {
        if (m.has_job_status() && m.job_status().job_id() == job_id &&
            m.job_status().phase() == phase) {
          found = m.job_status();
          return true;
        }
      }
      return false;
    };
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithTimeout(absl::Condition(&match), timeout);
    return found;
  }
  // The first job status with this phase for this run of the job.
  std::optional<canopy::v1::JobStatus> WaitJobRun(uint32_t job_id, uint32_t run_id,
                                                  canopy::v1::JobStatus::Phase phase,
                                                  absl::Duration timeout = absl::Seconds(5)) {
    std::optional<canopy::v1::JobStatus> found;
    auto match = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      for (const auto& m : messages_) {
        if (m.has_job_status() && m.job_status().job_id() == job_id &&
            m.job_status().run_id() == run_id && m.job_status().phase() == phase) {
          found = m.job_status();
          return true;
        }
      }
      return false;
    };
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithTimeout(absl::Condition(&match), timeout);
    return found;
  }
  std::optional<canopy::v1::StepStatus> WaitStep(uint32_t job_id, uint32_t step_id,
                                                 absl::Duration timeout = absl::Seconds(5)) {
    std::optional<canopy::v1::StepStatus> found;
    auto match = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      for (const auto& m : messages_) {
        if (m.has_step_status() && m.step_status().job_id() == job_id &&
            m.step_status().step_id() == step_id) {
          found = m.step_status();
          return true;
        }
      }
      return false;
    };
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithTimeout(absl::Condition(&match), timeout);
    return found;
  }

 private:
  absl::Mutex mu_;
  std::vector<canopy::v1::AgentMessage> messages_ ABSL_GUARDED_BY(mu_);
};

inline canopy::v1::LaunchJob BatchJob(uint32_t job_id, const std::string& script,
                                      const std::string& work_dir) {
  canopy::v1::LaunchJob l;
  canopy::v1::Job* job = l.mutable_job();
  job->set_job_id(job_id);
  job->set_user_id(geteuid());
  job->set_group_id(getegid());
  job->set_user_name("tester");
  job->add_nodes("n1");
  job->mutable_spec()->set_name("test");
  job->mutable_spec()->set_script(script);
  job->mutable_spec()->set_work_dir(work_dir);
  (*job->mutable_spec()->mutable_environment())["PATH"] = "/usr/bin:/bin";
  l.set_is_batch_host(true);
  l.set_cpus(1);
  l.mutable_kill_wait()->set_nanos(300'000'000);
  return l;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// True while `pid` is a live process (a zombie is not).
inline bool Alive(pid_t pid) {
  if (kill(pid, 0) != 0) {
    return false;
  }
  const std::string stat = ReadFile(absl::StrCat("/proc/", pid, "/stat"));
  const size_t paren = stat.rfind(')');
  return paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] != 'Z';
}

inline bool WaitFor(const std::function<bool()>& condition,
                    absl::Duration timeout = absl::Seconds(5)) {
  const absl::Time deadline = absl::Now() + timeout;
  while (!condition()) {
    if (absl::Now() > deadline) {
      return false;
    }
    absl::SleepFor(absl::Milliseconds(10));
  }
  return true;
}

}  // namespace canopy::agent::runtime::testing
