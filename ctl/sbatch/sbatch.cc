#include "ctl/sbatch/sbatch.h"

#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/os/hostname.h"
#include "common/slurm/hostlist.h"
#include "common/slurm/sbatch_options.h"
#include "common/slurm/time_format.h"
#include "ctl/client/cli_error.h"
#include "ctl/client/controller_client.h"
#include "ctl/client/process_env.h"
#include "ctl/output/proto_time.h"
#include "ctl/sbatch/job_spec.h"

namespace canopy::ctl::sbatch {
namespace {

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string TestOnlyLine(const canopy::v1::SubmitJobResponse& response, absl::TimeZone tz) {
  return absl::StrCat("Job ", response.job_id(), " to start at ",
                      slurm::FormatSlurmTimestamp(output::ToTime(response.expected_start()), tz),
                      " using ", response.expected_cpus(), " processors on nodes ",
                      slurm::CompressHostlist(std::vector<std::string>(
                          response.expected_nodes().begin(), response.expected_nodes().end())),
                      " in partition ", response.partition());
}

int RunSbatch(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
              std::ostream& err) {
  SubmitContext context;
  absl::StatusOr<slurm::SbatchOptions> cmdline = slurm::ParseSbatchCommandLine(args);
  if (!cmdline.ok()) {
    client::PrintCliError("sbatch", cmdline.status().message(), err);
    return client::GetoptExitCode(cmdline.status().message());
  }
  if (!cmdline->wrap.empty()) {
    if (!cmdline->script_path.empty()) {
      err << "sbatch: error: Script arguments not permitted with --wrap option\n";
      return 1;
    }
    context.script = WrapScript(cmdline->wrap);
    context.default_name = "wrap";
  } else if (!cmdline->script_path.empty()) {
    std::ifstream file(cmdline->script_path, std::ios::binary);
    if (!file) {
      err << "sbatch: error: Unable to open file " << cmdline->script_path << "\n";
      return 1;
    }
    context.script.assign(std::istreambuf_iterator<char>(file), {});
    context.default_name = BaseName(cmdline->script_path);
  } else {
    context.script.assign(std::istreambuf_iterator<char>(in), {});
    context.default_name = "sbatch";
  }
  absl::StatusOr<slurm::SbatchOptions> options = slurm::ParseSbatch(context.script, args);
  if (!options.ok()) {
    client::PrintCliError("sbatch", options.status().message(), err);
    return client::GetoptExitCode(options.status().message());
  }
  context.cwd = client::CurrentDirectory();
  context.now = absl::Now();  // --begin=now+1hour, 16:00: relative to the submission
  context.tz = absl::LocalTimeZone();
  context.short_hostname = os::Hostname(true);
  context.env = client::ProcessEnvironment();
  absl::StatusOr<canopy::v1::JobSpec> spec = BuildJobSpec(*options, context);
  if (!spec.ok()) {
    client::PrintPrefixed("sbatch: ", spec.status().message(), err);
    return 1;
  }
  absl::StatusOr<client::ControllerClient> client = client::ControllerClient::Connect("");
  if (!client.ok()) {
    client::PrintPrefixed("sbatch: error: ", client.status().message(), err);
    return 1;
  }
  canopy::v1::SubmitJobRequest request;
  *request.mutable_spec() = *std::move(spec);
  request.set_test_only(options->test_only);
  absl::StatusOr<canopy::v1::SubmitJobResponse> response = client->SubmitJob(request);
  if (!response.ok()) {
    // The controller words its rejections as sbatch does ("invalid partition specified: X",
    // "Batch job submission failed: ..."), one line each.
    client::PrintPrefixed("sbatch: error: ", response.status().message(), err);
    return 1;
  }
  if (options->test_only) {
    // sbatch prints this with info(), on stderr.
    err << "sbatch: " << TestOnlyLine(*response, absl::LocalTimeZone()) << "\n";
    return 0;
  }
  if (options->parsable) {
    out << response->job_id() << "\n";
  } else {
    out << "Submitted batch job " << response->job_id() << "\n";
  }
  return 0;
}

}  // namespace canopy::ctl::sbatch
