#include "ctl/canopyctl/jobs.h"

#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/slurm/hostlist.h"
#include "common/slurm/time_format.h"
#include "ctl/output/job_format.h"
#include "ctl/output/text_table.h"

namespace canopy::ctl::canopyctl {
namespace {

absl::Time ToTime(const google::protobuf::Timestamp& t) {
  return absl::FromUnixSeconds(t.seconds()) + absl::Nanoseconds(t.nanos());
}

std::string Timestamp(const google::protobuf::Timestamp& t, absl::TimeZone tz) {
  return t.seconds() == 0 ? "-" : slurm::FormatSlurmTimestamp(ToTime(t), tz);
}

std::string Nodes(const canopy::v1::Job& job) {
  return slurm::CompressHostlist(std::vector<std::string>(job.nodes().begin(), job.nodes().end()));
}

}  // namespace

std::string RenderJobsTable(const canopy::v1::ListJobsResponse& jobs) {
  const absl::Time now = ToTime(jobs.server_time());
  output::TextTable table(
      {"JOBID", "NAME", "USER", "STATE", "NODES", "LEAVES", "TIME", "NODELIST(REASON)"});
  for (const canopy::v1::Job& j : jobs.jobs()) {
    table.AddRow({output::JobIdString(j), j.spec().name(), j.user_name(),
                  output::JobStateName(j.state()), absl::StrCat(output::JobNodeCount(j)),
                  j.leaf_switches().empty() ? "-" : absl::StrJoin(j.leaf_switches(), ","),
                  slurm::FormatSlurmDuration(output::JobRunTime(j, now)),
                  j.nodes().empty() ? absl::StrCat("(", j.reason(), ")") : Nodes(j)});
  }
  std::ostringstream out;
  table.Print(out);
  return out.str();
}

std::string RenderJobDetails(const canopy::v1::Job& j, absl::Time now, absl::TimeZone tz) {
  std::string s;
  absl::StrAppend(&s, "Job ", output::JobIdString(j), " (", j.spec().name(), ") of ", j.user_name(),
                  "\n");
  absl::StrAppend(&s, "  State:      ", output::JobStateName(j.state()),
                  "  Reason: ", j.reason().empty() ? "None" : j.reason(), "\n");
  absl::StrAppend(&s, "  ExitCode:   ", output::ExitCodeString(j.exit_code(), j.exit_signal()),
                  "\n");
  absl::StrAppend(&s, "  Partition:  ", j.partition(), "  Priority: ", j.priority(), "\n");
  absl::StrAppend(&s, "  Nodes:      ", output::JobNodeCount(j), j.nodes().empty() ? "" : " ",
                  Nodes(j), "\n");
  absl::StrAppend(&s, "  GPUs/node:  ", output::TresPerNode(j.spec()), "\n");
  absl::StrAppend(&s, "  Leaves:     ",
                  j.leaf_switches().empty() ? "-" : absl::StrJoin(j.leaf_switches(), ","), "\n");
  absl::StrAppend(&s, "  Placement:  ",
                  j.placement_explanation().empty() ? "-" : j.placement_explanation(), "\n");
  absl::StrAppend(&s, "  Submitted:  ", Timestamp(j.submit_time(), tz), "\n");
  absl::StrAppend(&s, "  Started:    ", Timestamp(j.start_time(), tz), "\n");
  absl::StrAppend(&s, "  Ended:      ", Timestamp(j.end_time(), tz), "\n");
  absl::StrAppend(
      &s, "  RunTime:    ", slurm::FormatSlurmDuration(output::JobRunTime(j, now)), "  TimeLimit: ",
      j.has_time_limit() ? slurm::FormatSlurmDuration(absl::Seconds(j.time_limit().seconds()))
                         : "UNLIMITED",
      "\n");
  return s;
}

int JobsCommand(client::ControllerClient& client, const std::vector<std::string>& args,
                std::ostream& out, std::ostream& err) {
  canopy::v1::ListJobsRequest request;
  for (size_t i = 0; i < args.size(); ++i) {
    if ((args[i] == "--user" || args[i] == "-u") && i + 1 < args.size()) {
      request.set_user_name(args[++i]);
    } else if ((args[i] == "--partition" || args[i] == "-p") && i + 1 < args.size()) {
      request.set_partition(args[++i]);
    } else {
      err << "canopyctl jobs: unknown argument '" << args[i] << "'\n";
      return 2;
    }
  }
  absl::StatusOr<canopy::v1::ListJobsResponse> jobs = client.ListJobs(request);
  if (!jobs.ok()) {
    err << "canopyctl: " << jobs.status().message() << "\n";
    return 1;
  }
  out << RenderJobsTable(*jobs);
  return 0;
}

int JobCommand(client::ControllerClient& client, const std::vector<std::string>& args,
               std::ostream& out, std::ostream& err) {
  uint32_t id = 0;
  if (args.size() != 1 || !absl::SimpleAtoi(args[0], &id)) {
    err << "canopyctl job: give one job id, e.g. canopyctl job 42\n";
    return 2;
  }
  absl::StatusOr<canopy::v1::Job> job = client.GetJob(id);
  if (!job.ok()) {
    err << "canopyctl: " << job.status().message() << "\n";
    return 1;
  }
  out << RenderJobDetails(*job, absl::Now(), absl::LocalTimeZone());
  return 0;
}

int CancelCommand(client::ControllerClient& client, const std::vector<std::string>& args,
                  std::ostream& out, std::ostream& err) {
  canopy::v1::CancelJobRequest request;
  for (const std::string& a : args) {
    uint32_t id = 0;
    if (!absl::SimpleAtoi(a, &id)) {
      err << "canopyctl cancel: '" << a << "' is not a job id\n";
      return 2;
    }
    request.add_job_ids(id);
  }
  if (request.job_ids().empty()) {
    err << "canopyctl cancel: give the job ids to cancel\n";
    return 2;
  }
  absl::StatusOr<canopy::v1::CancelJobResponse> response = client.CancelJob(request);
  if (!response.ok()) {
    err << "canopyctl: " << response.status().message() << "\n";
    return 1;
  }
  int rc = 0;
  for (const canopy::v1::CancelResult& r : response->results()) {
    if (r.ok()) {
      out << "cancelled " << r.job_id() << "\n";
    } else {
      err << "job " << r.job_id() << ": " << r.error() << "\n";
      rc = 1;
    }
  }
  return rc;
}

int WhoAmICommand(client::ControllerClient& client, std::ostream& out, std::ostream& err) {
  absl::StatusOr<canopy::v1::WhoAmIResponse> me = client.WhoAmI();
  if (!me.ok()) {
    err << "canopyctl: " << me.status().message() << "\n";
    return 1;
  }
  out << me->user_name() << " (uid " << me->user_id() << ")"
      << (me->authenticated() ? ", authenticated by the unix socket" : ", not authenticated (TCP)")
      << (me->operator_() ? ", operator" : "") << "\n";
  return 0;
}

}  // namespace canopy::ctl::canopyctl
