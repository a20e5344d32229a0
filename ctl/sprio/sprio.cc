#include "ctl/sprio/sprio.h"

#include "common/slurm/slurm_version.h"
#include "ctl/client/cli_error.h"
#include "ctl/client/connect_or_say.h"
#include "ctl/client/controller_client.h"
#include "ctl/sprio/render.h"

namespace canopy::ctl::sprio {

int RunSprio(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  absl::StatusOr<SprioOptions> options = ParseSprioArgs(args);
  if (!options.ok()) {
    client::PrintCliError("sprio", options.status().message(), err);
    if (IsUnrecognizedOperand(options.status())) {
      out << SprioUsage();
    }
    return 1;
  }
  if (options->help) {
    out << SprioHelp();
    return 0;
  }
  if (options->usage) {
    out << SprioUsage();
    return 0;
  }
  if (options->version) {
    out << slurm::SlurmVersionLine("sprio");
    return 0;
  }
  absl::StatusOr<client::ControllerClient> client = client::ConnectOrSay("sprio", err);
  if (!client.ok()) {
    return 1;
  }
  // The filters go to canopyd too, so a large queue is not sent for one job; the renderer
  // applies them again (the answer is allowed to be a superset).
  canopy::v1::ListPrioritiesRequest request;
  for (uint32_t id : options->jobs) {
    request.add_job_ids(id);
  }
  for (const std::string& u : options->users) {
    request.add_users(u);
  }
  for (const std::string& p : options->partitions) {
    request.add_partitions(p);
  }
  absl::StatusOr<canopy::v1::ListPrioritiesResponse> priorities = client->ListPriorities(request);
  if (!priorities.ok()) {
    // slurm_perror("Couldn't get priority factors from controller").
    err << "Couldn't get priority factors from controller: " << priorities.status().message()
        << "\n";
    return 1;
  }
  const SprioOutput result = RenderSprio(*options, *priorities);
  err << result.err;
  out << result.out;
  return result.exit_code;
}

}  // namespace canopy::ctl::sprio
