#include "ctl/scontrol/daemon_commands.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "ctl/client/connect_or_say.h"
#include "ctl/client/controller_client.h"

namespace canopy::ctl::scontrol {

int Reconfigure(bool quiet, int verbose, std::ostream& err) {
  absl::StatusOr<client::ControllerClient> client = client::ConnectOrSay("scontrol", err);
  if (!client.ok()) {
    return 1;
  }
  absl::StatusOr<canopy::v1::ReconfigureResponse> r = client->Reconfigure();
  if (!r.ok()) {
    if (!quiet) {
      err << "slurm_reconfigure error: " << r.status().message() << "\n";
    }
    return 1;
  }
  if (verbose > 0) {
    for (const std::string& change : r->changes()) {
      err << "scontrol: reconfigure: " << change << "\n";
    }
  }
  return 0;
}

int Notify(const std::vector<std::string>& args, std::ostream& err) {
  // Slurm reads the id with strtol and takes "5.0" as job 5; anything else is its odd
  // "Invalid job_id X" (no newline) before the failure line.
  const std::string& id_text = args[0];
  uint32_t job_id = 0;
  if (!absl::SimpleAtoi(id_text.substr(0, id_text.find('.')), &job_id) || job_id == 0) {
    err << "Invalid job_id " << id_text << "job notify failure: No error\n";
    return 1;
  }
  canopy::v1::NotifyJobRequest request;
  request.set_job_id(job_id);
  request.set_message(absl::StrJoin(args.begin() + 1, args.end(), " "));
  absl::StatusOr<client::ControllerClient> client = client::ConnectOrSay("scontrol", err);
  if (!client.ok()) {
    return 1;
  }
  if (absl::Status s = client->NotifyJob(request); !s.ok()) {
    err << "job notify failure: " << s.message() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace canopy::ctl::scontrol
