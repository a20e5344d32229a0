#include "ctl/sinfo/sinfo.h"

#include <cstdlib>

#include "absl/time/clock.h"
#include "common/os/user_info.h"
#include "ctl/client/cli_error.h"
#include "ctl/client/connect_or_say.h"
#include "ctl/client/controller_client.h"
#include "ctl/sinfo/help.h"
#include "ctl/sinfo/options.h"
#include "ctl/sinfo/render.h"

namespace canopy::ctl::sinfo {
namespace {

SinfoEnvironment ProcessEnvironment() {
  SinfoEnvironment env;
  env.sinfo_all = std::getenv("SINFO_ALL") != nullptr;
  auto get = [](const char* name) -> std::optional<std::string> {
    const char* value = std::getenv(name);
    return value == nullptr ? std::nullopt : std::optional<std::string>(value);
  };
  env.sinfo_format = get("SINFO_FORMAT");
  env.sinfo_partition = get("SINFO_PARTITION");
  env.sinfo_sort = get("SINFO_SORT");
  return env;
}

// One report: asks canopyd and prints. False after printing an error. Format warnings are
// printed with the first report only: Slurm prints them once, when it reads the format.
bool Report(const SinfoOptions& options, bool first, client::ControllerClient& client,
            std::ostream& out, std::ostream& err) {
  absl::StatusOr<canopy::v1::ListPartitionsResponse> parts = client.ListPartitions();
  if (!parts.ok()) {
    err << "sinfo: error: " << parts.status().message() << "\n";
    return false;
  }
  // Every node: -n is applied here, as sinfo applies it, so a list the controller would refuse
  // selects nothing instead of failing.
  absl::StatusOr<canopy::v1::ListNodesResponse> nodes =
      client.ListNodes(canopy::v1::ListNodesRequest());
  if (!nodes.ok()) {
    err << "sinfo: error: " << nodes.status().message() << "\n";
    return false;
  }
  RenderContext context;
  context.tz = absl::LocalTimeZone();
  context.now = absl::Now();
  context.uid_of = [](const std::string& name) -> std::optional<uint32_t> {
    absl::StatusOr<os::UserInfo> user = os::LookupUserByName(name);
    return user.ok() ? std::optional<uint32_t>(user->uid) : std::nullopt;
  };
  // The "-" suffix (PLANNED) comes from pending jobs' backfill plans. Without them the nodes
  // print without it, which is what they are as far as this sinfo knows.
  canopy::v1::ListJobsRequest pending;
  pending.add_states(canopy::v1::JOB_STATE_PENDING);
  if (absl::StatusOr<canopy::v1::ListJobsResponse> jobs = client.ListJobs(pending); jobs.ok()) {
    context.planned_nodes = PlannedNodes(*jobs);
  }
  const SinfoOutput result = RenderSinfo(options, *parts, *nodes, context);
  if (first) {
    err << result.err;
  }
  out << result.out << std::flush;
  return true;
}

}  // namespace

int RunSinfo(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  absl::StatusOr<SinfoOptions> options = ParseSinfoArgs(args, ProcessEnvironment());
  if (!options.ok()) {
    client::PrintCliError("sinfo", options.status().message(), err);
    return 1;
  }
  if (options->info != SinfoInfo::kNone) {
    out << SinfoInfoText(options->info);
    return 0;
  }
  absl::StatusOr<client::ControllerClient> client = client::ConnectOrSay("sinfo", err);
  if (!client.ok()) {
    return 1;
  }
  if (!Report(*options, /*first=*/true, *client, out, err)) {
    return 1;
  }
  while (options->iterate_seconds > 0) {
    absl::SleepFor(absl::Seconds(options->iterate_seconds));
    // Slurm keeps iterating through a failed query; so does this.
    Report(*options, /*first=*/false, *client, out, err);
  }
  return 0;
}

}  // namespace canopy::ctl::sinfo
