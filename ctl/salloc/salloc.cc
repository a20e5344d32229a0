#include "ctl/salloc/salloc.h"

#include <pthread.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/os/hostname.h"
#include "common/slurm/begin_time.h"
#include "common/slurm/dependency.h"
#include "common/slurm/job_environment.h"
#include "ctl/client/cli_error.h"
#include "ctl/client/connect_or_say.h"
#include "ctl/client/controller_client.h"
#include "ctl/client/front_end_spank.h"
#include "ctl/client/process_env.h"
#include "ctl/client/wire_dependency.h"
#include "ctl/output/job_format.h"
#include "ctl/salloc/options.h"
#include "ctl/srun/requests.h"
#include "ctl/srun/srun.h"

namespace canopy::ctl::salloc {
namespace {

// How often salloc looks at its allocation while the command runs (a scancel or the time limit
// revokes it), and how long the command has between SIGHUP and SIGKILL once salloc itself is
// told to stop.
constexpr absl::Duration kWatchInterval = absl::Seconds(1);
constexpr absl::Duration kRevokeGrace = absl::Seconds(5);

// The command salloc runs on this host: a forked child, killed if salloc leaves before it ends.
class Child {
 public:
  Child() = default;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  // fork + execvp with `env` as the whole environment. The child takes the default action for
  // the signals salloc ignores, so Ctrl-C reaches the shell, not salloc.
  absl::Status Start(const std::vector<std::string>& argv, const slurm::Environment& env) {
    std::vector<std::string> env_strings = slurm::EnvironmentStrings(env);
    std::vector<char*> args, envp;
    for (const std::string& a : argv) {
      args.push_back(const_cast<char*>(a.c_str()));
    }
    args.push_back(nullptr);
    for (std::string& e : env_strings) {
      envp.push_back(e.data());
    }
    envp.push_back(nullptr);
    const pid_t pid = fork();
    if (pid < 0) {
      return absl::InternalError(absl::StrCat("fork: ", strerror(errno)));
    }
    if (pid == 0) {
      // Undo what salloc did to its own signals: the command gets the defaults.
      for (int sig : {SIGINT, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU, SIGTERM, SIGHUP}) {
        signal(sig, SIG_DFL);
      }
      sigset_t all;
      sigfillset(&all);
      sigprocmask(SIG_UNBLOCK, &all, nullptr);
      execvpe(args[0], args.data(), envp.data());
      const std::string message =
          absl::StrCat("salloc: error: ", argv[0], ": ", strerror(errno), "\n");
      (void)!write(STDERR_FILENO, message.data(), message.size());
      _exit(errno == ENOENT ? 127 : 126);
    }
    pid_ = pid;
    return absl::OkStatus();
  }

  // The exit status once the command ended (128 + N for signal N, as a shell reports it).
  std::optional<int> Poll() {
    int status = 0;
    if (pid_ <= 0 || waitpid(pid_, &status, WNOHANG) != pid_) {
      return std::nullopt;
    }
    pid_ = 0;
    signaled_ = WIFSIGNALED(status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  // The command that ended was killed by a signal (not an exit status above 128).
  bool signaled() const { return signaled_; }

  void Signal(int sig) const {
    if (pid_ > 0) {
      kill(pid_, sig);
    }
  }

 private:
  pid_t pid_ = 0;
  bool signaled_ = false;
};

// The signals salloc handles itself are blocked (before gRPC starts threads, so no other thread
// takes them) and polled: Ctrl-C while waiting gives the request up; SIGTERM or SIGHUP end
// the allocation.
sigset_t HandledSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    sigaddset(&set, sig);
  }
  return set;
}

// A handled signal taken without waiting, 0 if none.
int PendingSignal() {
  const sigset_t set = HandledSignals();
  timespec zero{};
  const int sig = sigtimedwait(&set, nullptr, &zero);
  return sig > 0 ? sig : 0;
}

// With -I and no value: how long the allocation may take to start (one scheduling pass) before
// salloc says the nodes are busy, as Slurm's controller answers an immediate request at once.
constexpr absl::Duration kImmediateGrace = absl::Seconds(2);

// Gives the request up. If canopyd cannot be told, the job may still start with nobody to use
// it: say so, with what to run.
void CancelRequest(client::ControllerClient& client, uint32_t job_id, std::ostream& err) {
  canopy::v1::CancelJobRequest cancel;
  cancel.add_job_ids(job_id);
  if (absl::StatusOr<canopy::v1::CancelJobResponse> r = client.CancelJob(cancel); !r.ok()) {
    err << "salloc: error: Unable to cancel job " << job_id << " (" << r.status().message()
        << "); run 'scancel " << job_id << "'\n";
  }
}

// Waits until the allocation runs: "Pending job allocation", "queued and waiting", then
// "has been allocated resources", as salloc prints them when it did not start at once. With
// `immediate`, gives up after that long: the request is cancelled and the error is salloc's (the
// revoked line follows it for -I=SECS).
absl::StatusOr<canopy::v1::Job> WaitForAllocation(client::ControllerClient& client, uint32_t job_id,
                                                  const SallocOptions& options, std::ostream& err) {
  const bool quiet = options.quiet;
  const bool at_once = options.immediate == absl::ZeroDuration();
  const absl::Time give_up = !options.immediate.has_value()
                                 ? absl::InfiniteFuture()
                                 : absl::Now() + (at_once ? kImmediateGrace : *options.immediate);
  const absl::Time asked = absl::Now();
  absl::Duration backoff = absl::Milliseconds(50);
  bool announced = false;
  while (true) {
    absl::StatusOr<canopy::v1::Job> job = client.GetJob(job_id);
    if (!job.ok()) {
      return job.status();
    }
    if (job->state() == canopy::v1::JOB_STATE_RUNNING) {
      if (announced && !quiet) {
        err << "salloc: job " << job_id << " has been allocated resources\n";
      }
      return job;
    }
    if (!output::IsJobActive(job->state()) || job->state() == canopy::v1::JOB_STATE_COMPLETING) {
      return absl::AbortedError(absl::StrCat("Job allocation ", job_id, " has been revoked."));
    }
    if (absl::Now() >= give_up) {
      CancelRequest(client, job_id, err);
      if (at_once) {
        return absl::UnavailableError("Unable to allocate resources: Requested nodes are busy");
      }
      err << "salloc: error: Unable to allocate resources: Connection timed out\n";
      return absl::DeadlineExceededError(
          absl::StrCat("Job allocation ", job_id, " has been revoked."));
    }
    if (!announced && !at_once && output::AllocationIsQueued(*job, absl::Now() - asked)) {
      if (!quiet) {
        err << "salloc: Pending job allocation " << job_id << "\n"
            << "salloc: job " << job_id << " queued and waiting for resources\n";
      }
      announced = true;
    }
    if (PendingSignal() != 0) {
      CancelRequest(client, job_id, err);
      return absl::CancelledError(absl::StrCat("Job allocation ", job_id, " has been revoked."));
    }
    absl::SleepFor(std::min(backoff, std::max(give_up - absl::Now(), absl::Milliseconds(1))));
    backoff = std::min(backoff * 2, absl::Seconds(1));
  }
}

// -b/--begin and -d/--dependency into the request; salloc's error line otherwise.
absl::Status ApplyDeferral(const SallocOptions& options, canopy::v1::JobSpec& spec) {
  if (!options.begin.empty()) {
    absl::StatusOr<absl::Time> t =
        slurm::ParseBeginTime(options.begin, absl::Now(), absl::LocalTimeZone());
    if (!t.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid --begin specification: ", t.status().message()));
    }
    spec.mutable_begin_time()->set_seconds(absl::ToUnixSeconds(*t));
  }
  if (!options.dependency.empty()) {
    absl::StatusOr<slurm::DependencyList> list = slurm::ParseDependency(options.dependency);
    if (!list.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(list.status().message(),
                       "\nsalloc: error: Job submit/allocate failed: Job dependency problem"));
    }
    client::AppendWireDependencies(*list, *spec.mutable_dependencies());
    spec.set_dependency_any(list->any);
  }
  return absl::OkStatus();
}

// The variables salloc's own options give the command, as Slurm's salloc sets them. --gres and
// --gpus-per-node are one option here: either gives SLURM_GPUS_PER_NODE.
slurm::Environment OptionVariables(const SallocOptions& options) {
  const srun::SrunOptions& a = options.allocation;
  slurm::SubmitOptionsInput in;
  in.cpus_per_task = a.cpus_per_task;
  in.mem_per_node_mib = options.mem_mib;
  in.mem_per_gpu_mib = a.mem_per_gpu_mib;
  in.cpus_per_gpu = a.cpus_per_gpu;
  if (a.gpus_per_node.has_value()) {
    in.gpus_per_node = a.gpu_type.empty() ? absl::StrCat(*a.gpus_per_node)
                                          : absl::StrCat(a.gpu_type, ":", *a.gpus_per_node);
  }
  if (a.gpus_per_task.has_value()) {
    in.gpus_per_task = absl::StrCat(*a.gpus_per_task);
  }
  in.overcommit = a.overcommit;
  in.distribution = a.distribution;
  return slurm::SubmitOptionVariables(in);
}

// salloc's environment plus the allocation's variables (no node's: the command runs here).
slurm::Environment CommandEnvironment(const canopy::v1::Job& job, const std::string& cluster,
                                      const SallocOptions& options) {
  slurm::JobEnvironmentInput in;
  in.job_id = job.job_id();
  in.job_name = job.spec().name();
  in.nodes.assign(job.nodes().begin(), job.nodes().end());
  in.ntasks = job.spec().ntasks();
  in.ntasks_per_node = job.spec().ntasks_per_node();
  in.partition = job.partition();
  in.account = job.spec().account();
  in.qos = job.qos();
  in.user_name = job.user_name();
  in.user_id = job.user_id();
  in.group_id = job.group_id();
  in.submit_dir = job.spec().submit_dir();
  in.submit_host = job.spec().submit_host();
  in.cluster_name = cluster;
  in.cpus = job.cpus_allocated().empty() ? 0 : job.cpus_allocated(0);
  slurm::Environment env;
  for (const auto& [key, value] : client::ProcessEnvironment()) {
    if (!slurm::IsJobOwnVariable(key)) {  // an enclosing job's (salloc run inside one)
      env[key] = value;
    }
  }
  for (const auto& [key, value] : slurm::AllocationVariables(in)) {
    env[key] = value;
  }
  for (auto& [key, value] : OptionVariables(options)) {
    env[key] = std::move(value);
  }
  return env;
}

std::vector<std::string> CommandOrShell(const std::vector<std::string>& command) {
  if (!command.empty()) {
    return command;
  }
  const char* shell = std::getenv("SHELL");
  return {shell != nullptr && *shell != '\0' ? shell : "/bin/sh"};
}

}  // namespace

int RunSalloc(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  // The site's SPANK plugins (allocator context): their options are salloc's too.
  absl::StatusOr<std::unique_ptr<client::FrontEndSpank>> spank =
      client::FrontEndSpank::Start("salloc", S_CTX_ALLOCATOR);
  if (!spank.ok()) {
    client::PrintPrefixed("salloc: ", spank.status().message(), err);
    return 1;
  }
  srun::SrunInput input;
  input.env = client::ProcessEnvironment();
  input.plugin_options = (*spank)->options();
  input.now = absl::Now();
  input.tz = absl::LocalTimeZone();
  absl::StatusOr<SallocOptions> options = ParseSallocArgs(args, input);
  if (!options.ok()) {
    client::PrintCliError("salloc", options.status().message(), err);
    return slurm::ExitCodeOf(options.status());
  }
  if (options->info != slurm::InfoRequest::kNone) {
    out << (options->info == slurm::InfoRequest::kHelp
                ? (*spank)->WithPluginHelp(SallocInfoText(options->info), "Help options:")
                : SallocInfoText(options->info));
    return slurm::InfoExitCode(options->info);
  }
  if (absl::Status s = (*spank)->ApplyOptions(options->allocation.plugin_options, input.env);
      !s.ok()) {
    client::PrintPrefixed("salloc: ", s.message(), err);
    return absl::IsInvalidArgument(s) ? 255 : 1;
  }
  if (absl::Status s = srun::ResolveUidAndGid(options->allocation); !s.ok()) {
    client::PrintCliError("salloc", s.message(), err);
    return slurm::ExitCodeOf(s);
  }
  const std::vector<std::string> command = CommandOrShell(options->command);
  options->allocation.command = command;

  const sigset_t handled = HandledSignals();
  pthread_sigmask(SIG_BLOCK, &handled, nullptr);
  // The command (often an interactive shell) owns the terminal's other signals.
  for (int sig : {SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU}) {
    signal(sig, SIG_IGN);
  }
  absl::StatusOr<client::ControllerClient> client = client::ConnectOrSay("salloc", err);
  if (!client.ok()) {
    return 1;
  }
  canopy::v1::SubmitJobRequest submit;
  canopy::v1::JobSpec& spec = *submit.mutable_spec();
  spec = srun::BuildAllocationSpec(options->allocation, client::CurrentDirectory(),
                                   os::Hostname(true));
  if (options->mem_mib.has_value()) {
    spec.set_mem_per_node_mib(*options->mem_mib);
  }
  spec.set_qos(options->qos);
  for (auto& [name, value] : (*spank)->JobEnvironment()) {
    (*spec.mutable_environment())[name] = value;
  }
  spec.set_hold(options->hold);
  if (absl::Status s = ApplyDeferral(*options, spec); !s.ok()) {
    err << "salloc: error: " << s.message() << "\n";
    return 1;
  }
  absl::StatusOr<canopy::v1::SubmitJobResponse> submitted = client->SubmitJob(submit);
  if (!submitted.ok()) {
    client::PrintAllocationRefusal("salloc: error: ", "salloc: error: Job submit/allocate failed: ",
                                   submitted.status().message(), err);
    return 1;
  }
  const uint32_t job_id = submitted->job_id();

  absl::StatusOr<canopy::v1::Job> job = WaitForAllocation(*client, job_id, *options, err);
  if (!job.ok()) {
    // Given up (Ctrl-C, -I=SECS) or taken away: salloc's plain lines; anything else an error.
    const absl::StatusCode code = job.status().code();
    if (code == absl::StatusCode::kCancelled || code == absl::StatusCode::kDeadlineExceeded ||
        code == absl::StatusCode::kAborted) {
      err << "salloc: " << job.status().message() << "\n";
      if (code == absl::StatusCode::kCancelled) {
        err << "salloc: Job aborted due to signal\n";
      }
    } else {
      err << "salloc: error: " << job.status().message() << "\n";
    }
    return 1;
  }
  if (!options->quiet) {
    err << "salloc: Granted job allocation " << job_id << "\n";
  }
  if (options->no_shell) {
    return 0;  // the allocation stays until scancel or its time limit
  }

  std::string cluster;
  if (absl::StatusOr<canopy::v1::PingResponse> ping = client->Ping(); ping.ok()) {
    cluster = ping->cluster_name();
  }
  Child child;
  if (absl::Status s = child.Start(command, CommandEnvironment(*job, cluster, *options)); !s.ok()) {
    err << "salloc: error: " << s.message() << "\n";
    return 1;
  }
  std::optional<int> exit_code;
  bool revoked = false;
  absl::Time next_watch = absl::Now() + kWatchInterval;
  absl::Time kill_at = absl::InfiniteFuture();
  while (!(exit_code = child.Poll()).has_value()) {
    absl::SleepFor(absl::Milliseconds(50));
    const absl::Time now = absl::Now();
    if (now >= kill_at) {
      child.Signal(SIGKILL);
    }
    if (const int sig = PendingSignal(); sig == SIGTERM || sig == SIGHUP) {
      // salloc told to stop: the command goes, then the allocation (Ctrl-C is the shell's).
      child.Signal(SIGHUP);
      child.Signal(SIGTERM);
      kill_at = std::min(kill_at, now + kRevokeGrace);
    }
    if (revoked || now < next_watch) {
      continue;
    }
    next_watch = now + kWatchInterval;
    absl::StatusOr<canopy::v1::Job> current = client->GetJob(job_id);
    if (current.ok() && current->state() != canopy::v1::JOB_STATE_RUNNING) {
      // scancel, the time limit or a node failure took the allocation away. As in Slurm, the
      // command runs on unless -K asked for a signal.
      revoked = true;
      err << "salloc: Job allocation " << job_id << " has been revoked.\n";
      if (options->kill_signal.has_value()) {
        child.Signal(*options->kill_signal);
      }
    }
  }
  if (revoked && child.signaled()) {
    return 1;  // Slurm's salloc: the command it killed for a revoked allocation failed it
  }
  if (!revoked) {
    if (!options->quiet) {
      err << "salloc: Relinquishing job allocation " << job_id << "\n";
    }
    canopy::v1::CompleteJobRequest done;
    done.set_job_id(job_id);
    done.set_exit_code(*exit_code);
    if (absl::Status s = client->CompleteJob(done); !s.ok()) {
      err << "salloc: error: Unable to complete job " << job_id << ": " << s.message() << "\n";
    }
  }
  return *exit_code;
}

}  // namespace canopy::ctl::salloc
