#include "ctl/squeue/squeue.h"

#include <unistd.h>

#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/os/user_info.h"
#include "ctl/client/cli_error.h"
#include "ctl/client/connect_or_say.h"
#include "ctl/client/controller_client.h"
#include "ctl/squeue/help.h"
#include "ctl/squeue/read_mask.h"
#include "ctl/squeue/render.h"
#include "ctl/squeue/rows.h"
#include "google/protobuf/arena.h"

namespace canopy::ctl::squeue {
namespace {

std::optional<std::string> Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::nullopt : std::optional<std::string>(value);
}

SqueueEnvironment ProcessEnvironment() {
  SqueueEnvironment env;
  env.squeue_format = Env("SQUEUE_FORMAT");
  env.squeue_format2 = Env("SQUEUE_FORMAT2");
  env.squeue_sort = Env("SQUEUE_SORT");
  env.squeue_account = Env("SQUEUE_ACCOUNT");
  env.squeue_names = Env("SQUEUE_NAMES");
  env.squeue_partition = Env("SQUEUE_PARTITION");
  env.squeue_qos = Env("SQUEUE_QOS");
  env.squeue_states = Env("SQUEUE_STATES");
  env.squeue_users = Env("SQUEUE_USERS");
  env.squeue_array = Env("SQUEUE_ARRAY").has_value();
  env.uid = static_cast<uint32_t>(getuid());
  // uid_from_string: a name, else a number.
  env.lookup_user = [](const std::string& user) -> std::optional<uint32_t> {
    absl::StatusOr<os::UserInfo> info = os::LookupUserByName(user);
    if (info.ok()) {
      return info->uid;
    }
    uint32_t uid = 0;
    if (absl::SimpleAtoi(user, &uid)) {
      return uid;
    }
    return std::nullopt;
  };
  return env;
}

RenderEnvironment Names() {
  RenderEnvironment env;
  env.tz = absl::LocalTimeZone();
  env.group_name = [](uint32_t gid) {
    absl::StatusOr<std::string> group = os::LookupGroupName(gid);
    return group.ok() ? *group : absl::StrCat(gid);
  };
  return env;
}

// One listing: 0, or squeue's exit code for a failure.
int ListOnce(const SqueueOptions& options, client::ControllerClient& client, std::ostream& out,
             std::ostream& err) {
  // canopyd filters by state where it can (finished jobs are most of a busy controller's list);
  // the rest is filtered here, as squeue does.
  // The list is parsed into an arena: thousands of records, each a few dozen allocations
  // otherwise, and freed in one go (docs/performance.md, "The command line").
  google::protobuf::ArenaOptions blocks;
  blocks.start_block_size = 64 * 1024;
  blocks.max_block_size = 1024 * 1024;
  google::protobuf::Arena arena(blocks);
  auto* jobs = google::protobuf::Arena::CreateMessage<canopy::v1::ListJobsResponse>(&arena);
  canopy::v1::ListJobsRequest request = ListRequest(options);
  AddReadMask(options, request);
  if (absl::Status listed = client.ListJobs(request, jobs); !listed.ok()) {
    err << "squeue: error: " << listed.message() << "\n";
    return 1;
  }
  if (NoRequestedJobFound(options, *jobs)) {
    err << "slurm_load_jobs error: Invalid job id specified\n";
    return 1;
  }
  const SqueueOutput result = RenderSqueueOutput(options, *jobs, Names());
  err << result.err;
  out << result.out;
  return result.exit_code;
}

}  // namespace

int RunSqueue(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  absl::StatusOr<SqueueOptions> options = ParseSqueueArgs(args, ProcessEnvironment());
  if (!options.ok()) {
    client::PrintCliError("squeue", options.status().message(), err);
    if (absl::StrContains(options.status().message(), "Unrecognized option")) {
      out << SqueueUsage();
    }
    return 1;
  }
  switch (options->info) {
    case InfoRequest::kHelp:
      out << SqueueHelp();
      return 0;
    case InfoRequest::kUsage:
      out << SqueueUsage();
      return 0;
    case InfoRequest::kVersion:
      out << SqueueVersion();
      return 0;
    case InfoRequest::kNone:
      break;
  }
  for (const std::string& warning : options->warnings) {
    err << warning;
  }
  absl::StatusOr<client::ControllerClient> client = client::ConnectOrSay("squeue", err);
  if (!client.ok()) {
    return 1;
  }
  // -i: list again every N seconds, a blank line after each listing, until interrupted.
  while (true) {
    const int rc = ListOnce(*options, *client, out, err);
    if (options->iterate_seconds <= 0 || rc != 0) {
      return rc;
    }
    out << "\n" << std::flush;
    absl::SleepFor(absl::Seconds(options->iterate_seconds));
  }
}

}  // namespace canopy::ctl::squeue
