// scontrol write batch_script (batch_script.h).
#include "ctl/scontrol/batch_script.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "ctl/client/controller_client.h"

namespace canopy::ctl::scontrol {

std::optional<BatchScriptRequest> ParseBatchScriptArgs(const std::vector<std::string>& args) {
  if (args.empty()) {
    return std::nullopt;
  }
  BatchScriptRequest request;
  const std::string& id = args[0];
  size_t digits = 0;
  while (digits < id.size() && absl::ascii_isdigit(id[digits])) {
    ++digits;
  }
  if (!absl::SimpleAtoi(id.substr(0, digits), &request.job_id)) {
    request.job_id = 0;
  }
  if (args.size() < 2) {
    request.path = absl::StrCat("slurm-", request.job_id, ".sh");
  } else if (args[1] != "-") {
    request.path = args[1];
  }
  return request;
}

absl::StatusOr<std::string> ScriptOf(const canopy::v1::Job& job,
                                     const std::optional<canopy::v1::WhoAmIResponse>& me) {
  // Slurm's controller refuses another user's script with ESLURM_USER_ID_MISSING.
  if (me.has_value() && !me->operator_() && me->user_name() != job.user_name()) {
    return absl::PermissionDeniedError("Invalid user id");
  }
  if (job.spec().script().empty()) {
    return absl::FailedPreconditionError("Job script not specified");
  }
  return job.spec().script();
}

int WriteBatchScript(const std::vector<std::string>& args, bool quiet, std::ostream& out,
                     std::ostream& err) {
  const std::optional<BatchScriptRequest> request = ParseBatchScriptArgs(args);
  if (!request.has_value()) {
    return 0;
  }
  absl::StatusOr<std::string> script = [&]() -> absl::StatusOr<std::string> {
    absl::StatusOr<client::ControllerClient> client = client::ControllerClient::Connect("");
    if (!client.ok()) {
      return client.status();
    }
    absl::StatusOr<canopy::v1::Job> job = client->GetJob(request->job_id);
    if (!job.ok()) {
      return absl::IsNotFound(job.status()) || absl::IsInvalidArgument(job.status())
                 ? absl::NotFoundError("Invalid job id specified")
                 : job.status();
    }
    absl::StatusOr<canopy::v1::WhoAmIResponse> me = client->WhoAmI();
    return ScriptOf(*job, me.ok() ? std::optional(*me) : std::nullopt);
  }();
  if (!script.ok()) {
    err << "job script retrieval failed: " << script.status().message() << "\n";
    return 0;
  }
  if (!request->path.has_value()) {
    out << *script;
    return 0;
  }
  std::ofstream file(*request->path, std::ios::out | std::ios::trunc);
  if (file) {
    file << *script;
    file.close();
  }
  if (!file) {
    err << "failed to open file `" << *request->path << "`: " << std::strerror(errno) << "\n";
    return 0;
  }
  if (!quiet) {
    out << "batch script for job " << request->job_id << " written to " << *request->path << "\n";
  }
  return 0;
}

}  // namespace canopy::ctl::scontrol
