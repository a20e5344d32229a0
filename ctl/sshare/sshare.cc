#include "ctl/sshare/sshare.h"

#include <pwd.h>
#include <unistd.h>

#include "common/slurm/slurm_version.h"
#include "ctl/client/cli_error.h"
#include "ctl/client/connect_or_say.h"
#include "ctl/client/controller_client.h"
#include "ctl/sshare/render.h"

namespace canopy::ctl::sshare {
namespace {

// Who sshare shows by default: canopyd's view of the caller (WhoAmI), else the local login.
std::string Caller(client::ControllerClient& client) {
  if (absl::StatusOr<canopy::v1::WhoAmIResponse> me = client.WhoAmI();
      me.ok() && !me->user_name().empty()) {
    return me->user_name();
  }
  if (const passwd* pw = getpwuid(getuid()); pw != nullptr) {
    return pw->pw_name;
  }
  return "";
}

}  // namespace

int RunSshare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  absl::StatusOr<SshareOptions> options = ParseSshareArgs(args);
  if (!options.ok()) {
    client::PrintCliError("sshare", options.status().message(), err);
    return 1;
  }
  if (options->help) {
    out << SshareUsage();
    return 0;
  }
  if (options->help_format) {
    out << RenderSshareFieldNames();
    return 0;
  }
  if (options->version) {
    out << slurm::SlurmVersionLine("sshare");
    return 0;
  }
  absl::StatusOr<client::ControllerClient> client = client::ConnectOrSay("sshare", err);
  if (!client.ok()) {
    return 1;
  }
  absl::StatusOr<canopy::v1::GetSharesResponse> shares = client->GetShares();
  if (!shares.ok()) {
    // slurm_perror("Couldn't get shares from controller").
    err << "Couldn't get shares from controller: " << shares.status().message() << "\n";
    return 1;
  }
  const std::string caller = options->all_users || !options->users.empty() ? "" : Caller(*client);
  absl::StatusOr<std::string> text = RenderSshare(*options, *shares, caller);
  if (!text.ok()) {
    err << "sshare: error: " << text.status().message() << "\n";
    return 1;
  }
  out << *text;
  return 0;
}

}  // namespace canopy::ctl::sshare
