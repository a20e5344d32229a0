#include "ctl/scancel/scancel.h"

#include <algorithm>
#include <set>

#include "absl/strings/match.h"
#include "common/slurm/slurm_version.h"
#include "ctl/client/cli_error.h"
#include "ctl/client/connect_or_say.h"
#include "ctl/client/controller_client.h"
#include "ctl/output/job_format.h"
#include "ctl/scancel/help.h"
#include "ctl/scancel/options.h"

namespace canopy::ctl::scancel {
namespace {

// Errors scancel keeps quiet about unless -v (it treats them as "already gone").
bool IsQuietError(const std::string& error) {
  return absl::StrContains(error, "Invalid job id") ||
         absl::StrContains(error, "already completing or completed");
}

bool MatchesFilters(const ScancelOptions& o, const canopy::v1::Job& job) {
  if (job.state() != canopy::v1::JOB_STATE_PENDING &&
      job.state() != canopy::v1::JOB_STATE_RUNNING &&
      job.state() != canopy::v1::JOB_STATE_CONFIGURING) {
    return false;
  }
  if (!o.user.empty() && job.user_name() != o.user) {
    return false;
  }
  if (!o.name.empty() && job.spec().name() != o.name) {
    return false;
  }
  const std::string& partition = job.partition().empty() ? job.spec().partition() : job.partition();
  if (!o.partition.empty() && partition != o.partition) {
    return false;
  }
  if (o.state && job.state() != *o.state) {
    return false;
  }
  if (o.targets.empty()) {
    return true;
  }
  for (const ScancelTarget& t : o.targets) {
    if (t.array_task ? (job.array_job_id() == t.job_id && job.array_task_id() == *t.array_task)
                     : (job.job_id() == t.job_id || job.array_job_id() == t.job_id)) {
      return true;
    }
  }
  return false;
}

}  // namespace

int RunScancel(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  absl::StatusOr<ScancelOptions> options = ParseScancelArgs(args);
  if (!options.ok()) {
    client::PrintCliError("scancel", options.status().message(), err);
    return 1;
  }
  switch (options->info) {
    case slurm::InfoRequest::kHelp:
      out << ScancelHelp();
      return 0;
    case slurm::InfoRequest::kUsage:
      out << ScancelUsage();
      return 0;
    case slurm::InfoRequest::kVersion:
      out << slurm::SlurmVersionLine("scancel");
      return 0;
    default:
      break;
  }
  absl::StatusOr<client::ControllerClient> client = client::ConnectOrSay("scancel", err);
  if (!client.ok()) {
    return 1;
  }
  const ScancelOptions& o = *options;
  const bool needs_list =
      o.HasFilters() || std::any_of(o.targets.begin(), o.targets.end(), [](const ScancelTarget& t) {
        return t.array_task.has_value();
      });
  // (job id, text shown in messages) of the jobs to cancel; steps separately.
  std::vector<std::pair<uint32_t, std::string>> jobs;
  std::vector<std::pair<uint32_t, uint32_t>> steps;
  int rc = 0;
  if (needs_list) {
    absl::StatusOr<canopy::v1::ListJobsResponse> list = client->ListJobs({});
    if (!list.ok()) {
      err << "slurm_load_jobs error: " << list.status().message() << "\n";
      return 1;
    }
    std::set<std::string> matched;
    for (const canopy::v1::Job& job : list->jobs()) {
      if (!MatchesFilters(o, job)) {
        continue;
      }
      bool as_step = false;
      for (const ScancelTarget& t : o.targets) {
        if (t.step_id &&
            (job.job_id() == t.job_id || (t.array_task && job.array_job_id() == t.job_id &&
                                          job.array_task_id() == *t.array_task))) {
          steps.emplace_back(job.job_id(), *t.step_id);
          matched.insert(t.text);
          as_step = true;
        }
      }
      if (!as_step) {
        jobs.emplace_back(job.job_id(), output::JobIdString(job));
        for (const ScancelTarget& t : o.targets) {
          if (job.job_id() == t.job_id || job.array_job_id() == t.job_id) {
            matched.insert(t.text);
          }
        }
      }
    }
    for (const ScancelTarget& t : o.targets) {
      if (!matched.contains(t.text) && !o.HasFilters() && o.verbose > 0) {
        err << "scancel: error: Kill job error on job id " << t.text
            << ": Invalid job id specified\n";
      }
    }
  } else {
    for (const ScancelTarget& t : o.targets) {
      if (t.step_id) {
        steps.emplace_back(t.job_id, *t.step_id);
      } else {
        jobs.emplace_back(t.job_id, t.text);
      }
    }
  }
  if (!jobs.empty()) {
    canopy::v1::CancelJobRequest request;
    for (const auto& [id, text] : jobs) {
      request.add_job_ids(id);
      if (o.verbose > 0) {
        if (o.signal == 0) {
          err << "scancel: Terminating job " << text << "\n";
        } else {
          err << "scancel: Signal " << o.signal << " to job " << text << "\n";
        }
      }
    }
    request.set_signal(o.signal);
    request.set_batch_only(o.batch);
    absl::StatusOr<canopy::v1::CancelJobResponse> response = client->CancelJob(request);
    if (!response.ok()) {
      err << "scancel: error: " << response.status().message() << "\n";
      return 1;
    }
    for (const canopy::v1::CancelResult& r : response->results()) {
      if (r.ok()) {
        continue;
      }
      if (IsQuietError(r.error()) && o.verbose <= 0) {
        continue;
      }
      err << "scancel: error: Kill job error on job id " << r.job_id() << ": " << r.error() << "\n";
      if (!IsQuietError(r.error())) {
        rc = 1;
      }
    }
  }
  for (const auto& [job_id, step_id] : steps) {
    if (o.verbose > 0) {
      if (o.signal == 0) {
        err << "scancel: Terminating step " << job_id << "." << step_id << "\n";
      } else {
        err << "scancel: Signal " << o.signal << " to step " << job_id << "." << step_id << "\n";
      }
    }
    canopy::v1::CancelStepRequest request;
    request.set_job_id(job_id);
    request.set_step_id(step_id);
    request.set_signal(o.signal);
    absl::Status s = client->CancelStep(request);
    if (!s.ok()) {
      err << "scancel: error: Kill job error on job step id " << job_id << "." << step_id << ": "
          << s.message() << "\n";
      rc = 1;
    }
  }
  return rc;
}

}  // namespace canopy::ctl::scancel
