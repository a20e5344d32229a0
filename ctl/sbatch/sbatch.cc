#include "ctl/sbatch/sbatch.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/os/hostname.h"
#include "common/os/user_info.h"
#include "common/slurm/hostlist.h"
#include "common/slurm/option_values.h"
#include "common/slurm/sbatch_options.h"
#include "common/slurm/time_format.h"
#include "ctl/client/cli_error.h"
#include "ctl/client/connect_or_say.h"
#include "ctl/client/controller_client.h"
#include "ctl/client/front_end_spank.h"
#include "ctl/client/process_env.h"
#include "ctl/output/job_format.h"
#include "ctl/output/proto_time.h"
#include "ctl/sbatch/help.h"
#include "ctl/sbatch/job_spec.h"
#include "ctl/sbatch/script_path.h"

namespace canopy::ctl::sbatch {
namespace {

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// --export-file=FILE|FD, as Slurm's env_array_from_file: a number from 3 up that is an open
// descriptor is read as one, anything else is a file name.
absl::StatusOr<std::string> ReadExportFile(const std::string& name) {
  int fd = -1;
  if (!name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return absl::ascii_isdigit(static_cast<unsigned char>(c));
      })) {
    int n = -1;
    if (absl::SimpleAtoi(name, &n) && n >= 3 && fcntl(n, F_GETFL) >= 0) {
      fd = n;
    }
  }
  const bool own = fd < 0;
  if (own) {
    fd = open(name.c_str(), O_RDONLY | O_CLOEXEC);
  }
  if (fd < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("error: Could not open user environment file ", name));
  }
  std::string content;
  char buf[4096];
  ssize_t got = 0;
  while ((got = read(fd, buf, sizeof(buf))) != 0) {
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got < 0) {
      break;
    }
    content.append(buf, static_cast<size_t>(got));
  }
  if (own) {
    close(fd);
  }
  return content;
}

// Prints `status` as sbatch does and returns its exit status.
int Fail(const absl::Status& status, std::ostream& err) {
  client::PrintCliError("sbatch", status.message(), err);
  return slurm::ExitCodeOf(status);
}

// A job, or an array task, that has ended: Slurm's IS_JOB_FINISHED. Requeued jobs come back.
bool Finished(const canopy::v1::Job& job) {
  return !output::IsJobActive(job.state()) && job.state() != canopy::v1::JOB_STATE_REQUEUED;
}

}  // namespace

std::optional<uint32_t> LookupUserId(const std::string& name) {
  absl::StatusOr<os::UserInfo> user = os::LookupUserByName(name);
  return user.ok() ? std::optional<uint32_t>(user->uid) : std::nullopt;
}

std::optional<uint32_t> LookupGroupId(const std::string& name) {
  group entry{};
  group* found = nullptr;
  std::vector<char> buf(16384);
  if (getgrnam_r(name.c_str(), &entry, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
    return std::nullopt;
  }
  return found->gr_gid;
}

int WaitForJob(uint32_t job_id,
               absl::FunctionRef<absl::StatusOr<canopy::v1::ListJobsResponse>()> list_jobs,
               absl::FunctionRef<void()> sleep, std::ostream& err) {
  while (true) {
    sleep();
    absl::StatusOr<canopy::v1::ListJobsResponse> jobs = list_jobs();
    if (!jobs.ok()) {
      err << "sbatch: error: Currently unable to load job state information, retrying: "
          << jobs.status().message() << "\n";
      continue;
    }
    if (jobs->jobs().empty()) {
      err << "sbatch: error: Job " << job_id << " no longer found and exit code not found\n";
      return 0;
    }
    int exit_code = 0;
    bool complete = true;
    for (const canopy::v1::Job& job : jobs->jobs()) {
      if (!Finished(job)) {
        complete = false;
        continue;
      }
      exit_code = std::max(exit_code, job.exit_signal() != 0 ? 1 : job.exit_code());
    }
    if (complete) {
      return exit_code;
    }
  }
}

std::string TestOnlyLine(const canopy::v1::SubmitJobResponse& response, absl::TimeZone tz) {
  return absl::StrCat("Job ", response.job_id(), " to start at ",
                      slurm::FormatSlurmTimestamp(output::ToTime(response.expected_start()), tz),
                      " using ", response.expected_cpus(), " processors on nodes ",
                      slurm::CompressHostlist(std::vector<std::string>(
                          response.expected_nodes().begin(), response.expected_nodes().end())),
                      " in partition ", response.partition());
}

absl::StatusOr<canopy::v1::SubmitJobResponse> SubmitRetryingWhileFull(
    absl::FunctionRef<absl::StatusOr<canopy::v1::SubmitJobResponse>()> submit,
    absl::FunctionRef<void(absl::Duration)> sleep, std::ostream& err) {
  constexpr int kMaxRetries = 15;  // Slurm's sbatch MAX_RETRIES
  absl::StatusOr<canopy::v1::SubmitJobResponse> response = submit();
  // Only the controller's MaxJobCount answer, or all its RPC threads busy: gRPC also says
  // RESOURCE_EXHAUSTED for a message over its size limit, which no retry would cure.
  auto full = [](const absl::Status& s) {
    return absl::IsResourceExhausted(s) &&
           (absl::StartsWith(s.message(), "Resource temporarily unavailable") ||
            absl::StrContains(s.message(), "Server Threadpool Exhausted"));
  };
  for (int retries = 0; retries < kMaxRetries && full(response.status());) {
    if (retries == 0) {
      err << "sbatch: error: Slurm temporarily unable to accept job, sleeping and retrying\n";
      err.flush();
    }
    sleep(absl::Seconds(++retries));
    response = submit();
  }
  return response;
}

int RunSbatch(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
              std::ostream& err) {
  // The site's SPANK plugins first: their options are sbatch's too, --help included.
  absl::StatusOr<std::unique_ptr<client::FrontEndSpank>> spank =
      client::FrontEndSpank::Start("sbatch", S_CTX_ALLOCATOR);
  if (!spank.ok()) {
    client::PrintPrefixed("sbatch: ", spank.status().message(), err);
    return 1;
  }
  const std::vector<slurm::ExtraOption>& plugin_options = (*spank)->options();
  // sbatch's first pass: --help, --usage and --version win over everything else.
  absl::StatusOr<slurm::InfoRequest> info = slurm::FindSbatchInfoRequest(args, plugin_options);
  if (!info.ok()) {
    return Fail(info.status(), err);
  }
  if (*info != slurm::InfoRequest::kNone) {
    out << (*info == slurm::InfoRequest::kHelp
                ? (*spank)->WithPluginHelp(SbatchInfoText(*info), "GPU scheduling options:")
                : SbatchInfoText(*info));
    return slurm::InfoExitCode(*info);
  }
  SubmitContext context;
  context.cwd = client::CurrentDirectory();
  absl::StatusOr<slurm::SbatchOptions> cmdline =
      slurm::ParseSbatchCommandLine(args, plugin_options);
  if (!cmdline.ok()) {
    return Fail(cmdline.status(), err);
  }
  if (!cmdline->wrap.empty()) {
    if (!cmdline->script_path.empty()) {
      err << "sbatch: error: Script arguments not permitted with --wrap option\n";
      return 1;
    }
    context.script = WrapScript(cmdline->wrap);
    context.default_name = "wrap";
  } else if (!cmdline->script_path.empty()) {
    // --chdir, when given, is where a script named without a path is looked for first.
    const std::string work_dir =
        cmdline->chdir.empty() ? context.cwd : ResolvePath(cmdline->chdir, context.cwd);
    std::ifstream file(ResolveScriptPath(cmdline->script_path, work_dir, std::getenv("PATH")),
                       std::ios::binary);
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
  context.env = client::ProcessEnvironment();
  client::AddCallerUmask(context.env);
  absl::StatusOr<slurm::SbatchOptions> options =
      slurm::ParseSbatch(context.script, args, context.env, plugin_options);
  if (!options.ok()) {
    return Fail(options.status(), err);
  }
  if (absl::Status s = (*spank)->ApplyOptions(options->plugin_options, context.env); !s.ok()) {
    client::PrintPrefixed("sbatch: ", s.message(), err);
    return absl::IsInvalidArgument(s) ? 255 : 1;  // as sbatch 22.05 exits for each
  }
  if (options->info != slurm::InfoRequest::kNone) {  // --hint=help
    out << SbatchInfoText(options->info);
    return slurm::InfoExitCode(options->info);
  }
  if (!options->export_file.empty()) {
    absl::StatusOr<std::string> content = ReadExportFile(options->export_file);
    if (!content.ok()) {
      return Fail(content.status(), err);
    }
    context.export_file_env = ParseExportFile(*content);
    // The file's variables replace sbatch's, less the mask read above.
    context.export_file_env->emplace("SLURM_UMASK", context.env.at("SLURM_UMASK"));
  }
  context.now = absl::Now();  // --begin=now+1hour, 16:00: relative to the submission
  context.tz = absl::LocalTimeZone();
  context.short_hostname = os::Hostname(true);
  context.caller_uid = getuid();
  errno = 0;  // -1 is a nice value as well as the error
  const int nice_value = getpriority(PRIO_PROCESS, 0);
  context.prio_process = errno == 0 ? nice_value : 0;
  context.lookup_user = LookupUserId;
  context.lookup_group = LookupGroupId;
  absl::StatusOr<canopy::v1::JobSpec> spec = BuildJobSpec(*options, context);
  if (!spec.ok()) {
    client::PrintPrefixed("sbatch: ", spec.status().message(), err);
    return slurm::ExitCodeOf(spec.status());
  }
  absl::StatusOr<client::ControllerClient> client = client::ConnectOrSay("sbatch", err);
  if (!client.ok()) {
    return 1;
  }
  // The plugins' options travel with the job, whatever --export says (as Slurm's spank_job_env).
  for (auto& [name, value] : (*spank)->JobEnvironment()) {
    (*spec->mutable_environment())[name] = value;
  }
  canopy::v1::SubmitJobRequest request;
  *request.mutable_spec() = *std::move(spec);
  request.set_test_only(options->test_only);
  absl::StatusOr<canopy::v1::SubmitJobResponse> response = SubmitRetryingWhileFull(
      [&] { return client->SubmitJob(request); }, [](absl::Duration d) { absl::SleepFor(d); }, err);
  if (!response.ok()) {
    // The controller words its rejections as sbatch does ("invalid partition specified: X",
    // "Batch job submission failed: ..."), one line each.
    client::PrintPrefixed(
        "sbatch: error: ",
        absl::StartsWith(response.status().message(), "Resource temporarily unavailable")
            ? absl::StrCat("Batch job submission failed: ", response.status().message())
            : std::string(response.status().message()),
        err);
    return 1;
  }
  if (options->test_only) {
    // sbatch prints this with info(), on stderr, which -Q silences.
    if (!options->quiet) {
      err << "sbatch: " << TestOnlyLine(*response, absl::LocalTimeZone()) << "\n";
    }
    return 0;
  }
  // -Q silences the job id too, even with --parsable (Slurm 22.05 printed nothing for either).
  if (!options->quiet) {
    if (options->parsable) {
      out << response->job_id() << "\n";
    } else {
      out << "Submitted batch job " << response->job_id() << "\n";
    }
  }
  if (!options->wait) {
    return 0;
  }
  out.flush();
  const uint32_t job_id = response->job_id();
  canopy::v1::ListJobsRequest request_jobs;
  request_jobs.add_job_ids(job_id);  // the job, or every task of the array it is
  return WaitForJob(
      job_id, [&] { return client->ListJobs(request_jobs); },
      [] { absl::SleepFor(absl::Seconds(1)); }, err);
}

}  // namespace canopy::ctl::sbatch
