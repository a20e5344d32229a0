#include "ctl/sacct/sacct.h"

#include <unistd.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/os/user_info.h"
#include "common/slurm/slurm_version.h"
#include "ctl/client/controller_client.h"
#include "ctl/output/proto_time.h"
#include "ctl/sacct/options.h"
#include "ctl/sacct/render.h"

namespace canopy::ctl::sacct {
namespace {

SacctEnvironment ProcessEnvironment() {
  SacctEnvironment env;
  env.now = absl::Now();  // -S now-1hour, the window from 00:00 today
  env.tz = absl::LocalTimeZone();
  env.uid = static_cast<uint32_t>(getuid());
  if (const char* format = std::getenv("SACCT_FORMAT"); format != nullptr) {
    env.sacct_format = format;
  }
  env.lookup_user = [](const std::string& name) -> std::optional<uint32_t> {
    absl::StatusOr<os::UserInfo> user = os::LookupUserByName(name);
    return user.ok() ? std::optional<uint32_t>(user->uid) : std::nullopt;
  };
  return env;
}

RenderEnvironment Names() {
  RenderEnvironment env;
  env.tz = absl::LocalTimeZone();
  // uid_to_string / gid_to_string: the number when the name service does not know it.
  env.user_name = [](uint32_t uid) {
    absl::StatusOr<os::UserInfo> user = os::LookupUser(uid);
    return user.ok() ? user->name : absl::StrCat(uid);
  };
  env.group_name = [](uint32_t gid) {
    absl::StatusOr<std::string> group = os::LookupGroupName(gid);
    return group.ok() ? *group : absl::StrCat(gid);
  };
  return env;
}

}  // namespace

int RunSacct(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  absl::StatusOr<SacctOptions> options = ParseSacctArgs(args, ProcessEnvironment());
  if (!options.ok()) {
    err << options.status().message() << "\n";
    return 1;
  }
  if (options->version) {
    out << slurm::SlurmVersionLine("sacct");
    return 0;
  }
  if (options->help) {
    out << SacctHelp();
    return 0;
  }
  if (options->usage) {
    out << SacctUsage();
    return 0;
  }
  if (options->helpformat) {
    out << SacctHelpFormat();
    return 0;
  }

  canopy::v1::ListAccountingResponse response;
  // -s with only states Canopy never has (SUSPENDED, ...): no job can match, and an empty
  // state list would ask for every state.
  if (options->states_given && options->states.empty()) {
    response.mutable_server_time()->set_seconds(absl::ToUnixSeconds(absl::Now()));
  } else {
    absl::StatusOr<client::ControllerClient> client = client::ControllerClient::Connect("");
    if (!client.ok()) {
      err << "sacct: error: Problem talking to the database: " << client.status().message() << "\n";
      return 1;
    }
    absl::StatusOr<canopy::v1::ListAccountingResponse> answer =
        client->ListAccounting(AccountingRequest(*options));
    if (!answer.ok()) {
      err << "sacct: error: Problem talking to the database: " << answer.status().message() << "\n";
      return 1;
    }
    response = *std::move(answer);
  }
  const SacctOutput result = RenderSacct(*options, response, Names());
  err << result.err;
  out << result.out;
  return result.exit_code;
}

}  // namespace canopy::ctl::sacct
