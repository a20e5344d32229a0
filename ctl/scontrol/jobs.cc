// scontrol's job commands against canopyd (jobs.h).
#include "ctl/scontrol/jobs.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/os/user_info.h"
#include "ctl/client/connect_or_say.h"
#include "ctl/client/controller_client.h"
#include "ctl/output/job_format.h"
#include "ctl/scontrol/job_words.h"
#include "ctl/scontrol/show_job.h"

namespace canopy::ctl::scontrol {
namespace {

// A requested job and the raw id canopyd knows it by.
struct Resolved {
  uint32_t id = 0;
  std::string text;  // as the user wrote it
};

// The raw ids of `list`: tasks ("5_2") and jobname= are looked up in canopyd's job list; a task
// that does not exist is reported and left out. jobname= names the caller's pending jobs of
// that name (an operator's: everyone's).
std::vector<Resolved> Resolve(client::ControllerClient& client, const JobList& list,
                              std::ostream& err, int& rc) {
  std::vector<Resolved> out;
  const bool needs_list =
      !list.job_name.empty() || std::any_of(list.targets.begin(), list.targets.end(),
                                            [](const JobTarget& t) { return t.task.has_value(); });
  canopy::v1::ListJobsResponse jobs;
  if (needs_list) {
    absl::StatusOr<canopy::v1::ListJobsResponse> listed = client.ListJobs({});
    if (!listed.ok()) {
      err << "slurm_load_jobs error: " << listed.status().message() << "\n";
      rc = 1;
      return out;
    }
    jobs = *std::move(listed);
  }
  if (!list.job_name.empty()) {
    absl::StatusOr<canopy::v1::WhoAmIResponse> me = client.WhoAmI();
    for (const canopy::v1::Job& job : jobs.jobs()) {
      if (job.spec().name() == list.job_name && job.state() == canopy::v1::JOB_STATE_PENDING &&
          me.ok() && (me->operator_() || job.user_name() == me->user_name())) {
        out.push_back({job.job_id(), absl::StrCat(job.job_id())});
      }
    }
    if (out.empty()) {
      err << "Invalid job name specified: no pending job named " << list.job_name << "\n";
      rc = 1;
    }
    return out;
  }
  for (const JobTarget& t : list.targets) {
    if (!t.task.has_value()) {
      out.push_back({t.job_id, t.text});
      continue;
    }
    bool found = false;
    for (const canopy::v1::Job& job : jobs.jobs()) {
      if (job.array_job_id() == t.job_id && job.array_task_id() == *t.task) {
        out.push_back({job.job_id(), t.text});
        found = true;
        break;
      }
    }
    if (!found) {
      err << "Invalid job id specified for job " << t.text << "\n";
      rc = 1;
    }
  }
  return out;
}

// An update's refusal as scontrol words it before " for job X": a job canopyd does not have is
// Slurm's "Invalid job id specified" (canopyd's own message also names the id).
std::string UpdateRefusal(const absl::Status& s) {
  return absl::IsNotFound(s) ? std::string("Invalid job id specified") : std::string(s.message());
}

// An array's job id names every task of the array that has not ended, as Slurm's update does
// ("update JobId=55 TimeLimit=10" changes all of 55's tasks); any other id names its job. (The
// job-list commands leave this to canopyd, which applies them to each task.)
std::vector<Resolved> ExpandArray(client::ControllerClient& client, std::vector<Resolved> jobs) {
  if (jobs.size() != 1) {
    return jobs;
  }
  const uint32_t id = jobs.front().id;
  absl::StatusOr<canopy::v1::Job> job = client.GetJob(id);
  if (!job.ok() || job->array_job_id() != id) {
    return jobs;
  }
  absl::StatusOr<canopy::v1::ListJobsResponse> listed = client.ListJobs({});
  if (!listed.ok()) {
    return jobs;
  }
  std::vector<Resolved> tasks;
  for (const canopy::v1::Job& task : listed->jobs()) {
    if (task.array_job_id() == id && output::IsJobActive(task.state())) {
      tasks.push_back({task.job_id(), absl::StrCat(id, "_", task.array_task_id())});
    }
  }
  return tasks.empty() ? jobs : tasks;
}

}  // namespace

int ShowJobs(const std::vector<std::string>& args, bool one_liner, bool details, std::ostream& out,
             std::ostream& err) {
  std::optional<JobTarget> only;
  if (!args.empty()) {
    absl::StatusOr<JobList> list = ParseJobList(args);
    if (!list.ok() || list->targets.size() != 1) {
      // What is not a job id fails before any lookup, as scontrol's own parse does; an id the
      // controller does not have is slurm_load_jobs's error, below.
      err << "scontrol_print_job error: Invalid job id specified\n";
      return 1;
    }
    only = list->targets[0];
  }
  absl::StatusOr<client::ControllerClient> client = client::ConnectOrSay("scontrol", err);
  if (!client.ok()) {
    return 1;
  }
  canopy::v1::ListJobsRequest request;
  if (only.has_value()) {
    request.add_job_ids(only->job_id);
  }
  absl::StatusOr<canopy::v1::ListJobsResponse> jobs = client->ListJobs(request);
  if (!jobs.ok()) {
    err << "slurm_load_jobs error: " << jobs.status().message() << "\n";
    return 1;
  }
  ShowJobOptions options;
  options.one_liner = one_liner;
  options.details = details;
  std::map<uint32_t, std::string> groups;  // gid -> name, looked up once each
  int shown = 0;
  for (const canopy::v1::Job& job : jobs->jobs()) {
    if (only.has_value() && only->task.has_value() &&
        (job.array_job_id() != only->job_id || job.array_task_id() != *only->task)) {
      continue;
    }
    auto [it, inserted] = groups.try_emplace(job.group_id());
    if (inserted) {
      absl::StatusOr<std::string> name = os::LookupGroupName(job.group_id());
      it->second = name.ok() ? *name : absl::StrCat(job.group_id());
    }
    out << RenderJob(job, absl::Now(), absl::LocalTimeZone(), it->second, options);
    ++shown;
  }
  if (only.has_value() && shown == 0) {
    err << "slurm_load_jobs error: Invalid job id specified\n";
    return 1;
  }
  if (!only.has_value() && shown == 0) {
    out << "No jobs in the system\n";
  }
  return 0;
}

int ControlJobs(Command command, const std::vector<std::string>& args, std::ostream& err) {
  absl::StatusOr<JobList> list = ParseJobList(args);
  if (!list.ok()) {
    err << list.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<client::ControllerClient> client = client::ConnectOrSay("scontrol", err);
  if (!client.ok()) {
    return 1;
  }
  int rc = 0;
  const std::vector<Resolved> jobs = Resolve(*client, *list, err, rc);
  if (jobs.empty()) {
    return rc;
  }
  absl::StatusOr<canopy::v1::JobActionResponse> response;
  if (command == Command::kHold || command == Command::kUserHold) {
    canopy::v1::HoldJobsRequest request;
    for (const Resolved& j : jobs) {
      request.add_job_ids(j.id);
    }
    request.set_user_hold(command == Command::kUserHold);
    response = client->HoldJobs(request);
  } else if (command == Command::kRelease) {
    canopy::v1::ReleaseJobsRequest request;
    for (const Resolved& j : jobs) {
      request.add_job_ids(j.id);
    }
    response = client->ReleaseJobs(request);
  } else {
    canopy::v1::RequeueJobsRequest request;
    for (const Resolved& j : jobs) {
      request.add_job_ids(j.id);
    }
    request.set_hold(command == Command::kRequeueHold);
    response = client->RequeueJobs(request);
  }
  if (!response.ok()) {
    err << "scontrol: error: " << response.status().message() << "\n";
    return 1;
  }
  for (int i = 0; i < response->results_size() && i < static_cast<int>(jobs.size()); ++i) {
    const canopy::v1::JobActionResult& r = response->results(i);
    if (!r.ok()) {
      err << r.error() << " for job " << jobs[i].text << "\n";
      rc = 1;
    }
  }
  return rc;
}

int TopJobs(const std::vector<std::string>& args, std::ostream& err) {
  absl::StatusOr<JobList> list = ParseJobList(args);
  if (!list.ok()) {
    err << list.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<client::ControllerClient> client = client::ConnectOrSay("scontrol", err);
  if (!client.ok()) {
    return 1;
  }
  int rc = 0;
  std::vector<Resolved> jobs = Resolve(*client, *list, err, rc);
  // Each one goes on top of the others in turn: the last one moved ends up first.
  std::reverse(jobs.begin(), jobs.end());
  for (const Resolved& j : jobs) {
    canopy::v1::UpdateJobRequest request;
    request.set_job_id(j.id);
    request.set_top(true);
    if (absl::Status s = client->UpdateJob(request); !s.ok()) {
      err << UpdateRefusal(s) << " for job " << j.text << "\n";
      rc = 1;
    }
  }
  return rc;
}

int SuspendJobs(const std::vector<std::string>& args, bool quiet, std::ostream& err) {
  absl::StatusOr<JobList> list = ParseJobList(args);
  if (!list.ok()) {
    err << list.status().message() << "\n";
    return 1;
  }
  if (!list->job_name.empty()) {
    // Slurm's suspend takes job ids only.
    err << "Invalid job id specified for job jobname=" << list->job_name << "\n";
    return 1;
  }
  for (const JobTarget& t : list->targets) {
    if (!quiet) {
      err << "Requested operation not supported on this system for job " << t.text << "\n";
    }
  }
  return 1;
}

int UpdateJob(const std::vector<std::string>& args, std::ostream& err) {
  absl::StatusOr<JobUpdate> update = ParseJobUpdate(args);
  if (!update.ok()) {
    err << update.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<client::ControllerClient> client = client::ConnectOrSay("scontrol", err);
  if (!client.ok()) {
    return 1;
  }
  int rc = 0;
  JobList list;
  list.targets.push_back(update->target);
  std::vector<Resolved> jobs = Resolve(*client, list, err, rc);
  if (!update->target.task.has_value()) {
    jobs = ExpandArray(*client, std::move(jobs));
  }
  for (const Resolved& j : jobs) {
    canopy::v1::UpdateJobRequest request = update->request;
    request.set_job_id(j.id);
    if (absl::Status s = client->UpdateJob(request); !s.ok()) {
      err << UpdateRefusal(s) << " for job " << j.text << "\n";
      rc = 1;
    }
  }
  return rc;
}

}  // namespace canopy::ctl::scontrol
