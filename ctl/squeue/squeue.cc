#include "ctl/squeue/squeue.h"

#include "ctl/client/cli_error.h"
#include "ctl/client/controller_client.h"
#include "ctl/squeue/render.h"

namespace canopy::ctl::squeue {

int RunSqueue(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  absl::StatusOr<SqueueOptions> options = ParseSqueueArgs(args);
  if (!options.ok()) {
    client::PrintCliError("squeue", options.status().message(), err);
    return 1;
  }
  absl::StatusOr<client::ControllerClient> client = client::ControllerClient::Connect("");
  if (!client.ok()) {
    err << "squeue: error: " << client.status().message() << "\n";
    return 1;
  }
  // Filtering is done here (squeue filters client-side too): one request, and "-j 5" can match
  // every task of array 5.
  absl::StatusOr<canopy::v1::ListJobsResponse> jobs = client->ListJobs({});
  if (!jobs.ok()) {
    err << "squeue: error: " << jobs.status().message() << "\n";
    return 1;
  }
  if (NoRequestedJobFound(*options, *jobs)) {
    err << "slurm_load_jobs error: Invalid job id specified\n";
    return 1;
  }
  out << RenderSqueue(*options, *jobs, absl::LocalTimeZone());
  return 0;
}

}  // namespace canopy::ctl::squeue
