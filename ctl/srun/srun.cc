#include "ctl/srun/srun.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "common/os/hostname.h"
#include "common/slurm/option_values.h"
#include "common/slurm/recorded_option_values.h"
#include "ctl/client/cli_error.h"
#include "ctl/client/connect_or_say.h"
#include "ctl/client/controller_client.h"
#include "ctl/client/front_end_spank.h"
#include "ctl/client/process_env.h"
#include "ctl/output/job_format.h"
#include "ctl/sbatch/sbatch.h"
#include "ctl/srun/help.h"
#include "ctl/srun/options.h"
#include "ctl/srun/requests.h"
#include "ctl/srun/step_io_server.h"
#include "ctl/srun/step_output.h"

namespace canopy::ctl::srun {
namespace {

// How long nodes may take to attach to srun's StepIo server after CreateStep.
constexpr absl::Duration kAttachTimeout = absl::Seconds(30);

// SIGINT/SIGTERM taken without waiting (they are blocked and polled), 0 if none.
int PendingSignal() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  timespec zero{};
  const int sig = sigtimedwait(&set, nullptr, &zero);
  return sig > 0 ? sig : 0;
}

// Waits until the allocation runs, as srun does: "queued and waiting", then "allocated", when it
// did not start at once; nothing when it did.
absl::Status WaitForAllocation(client::ControllerClient& client, uint32_t job_id,
                               std::ostream& err) {
  const absl::Time asked = absl::Now();
  absl::Duration backoff = absl::Milliseconds(50);
  bool announced = false;
  while (true) {
    absl::StatusOr<canopy::v1::Job> job = client.GetJob(job_id);
    if (!job.ok()) {
      return job.status();
    }
    if (job->state() == canopy::v1::JOB_STATE_RUNNING) {
      if (announced) {
        err << "srun: job " << job_id << " has been allocated resources\n";
      }
      return absl::OkStatus();
    }
    if (!output::IsJobActive(job->state()) || job->state() == canopy::v1::JOB_STATE_COMPLETING) {
      return absl::AbortedError(
          absl::StrCat("job ", job_id, " ended before it ran: ", output::JobStateName(job->state()),
                       job->reason().empty() ? "" : ", ", job->reason()));
    }
    if (!announced && output::AllocationIsQueued(*job, absl::Now() - asked)) {
      err << "srun: job " << job_id << " queued and waiting for resources\n";
      announced = true;
    }
    if (PendingSignal() != 0) {
      // Ctrl-C while queued: give the allocation up, as srun does.
      canopy::v1::CancelJobRequest cancel;
      cancel.add_job_ids(job_id);
      (void)client.CancelJob(cancel);
      return absl::CancelledError(absl::StrCat("Job allocation ", job_id, " has been revoked"));
    }
    absl::SleepFor(backoff);
    backoff = std::min(backoff * 2, absl::Seconds(1));
  }
}

// srun --test-only: when and where the allocation would start, as sbatch --test-only says it
// (slurm_job_will_run prints the same line for both), without running anything.
int TestOnly(client::ControllerClient& controller, canopy::v1::JobSpec spec, std::ostream& err) {
  canopy::v1::SubmitJobRequest request;
  *request.mutable_spec() = std::move(spec);
  request.set_test_only(true);
  absl::StatusOr<canopy::v1::SubmitJobResponse> response = controller.SubmitJob(request);
  if (!response.ok()) {
    client::PrintPrefixed("srun: error: allocation failure: ", response.status().message(), err);
    return 1;
  }
  err << "srun: " << sbatch::TestOnlyLine(*response, absl::LocalTimeZone()) << "\n";
  return 0;
}

}  // namespace

// --uid/--gid: root only, resolved to ids (slurm::ResolveRunAs).
absl::Status ResolveUidAndGid(SrunOptions& o) {
  if (!o.uid.empty()) {
    absl::StatusOr<uint32_t> uid =
        slurm::ResolveRunAs(o.uid, "uid", getuid(), sbatch::LookupUserId);
    if (!uid.ok()) {
      return uid.status();
    }
    o.run_as_uid = *uid;
  }
  if (!o.gid.empty()) {
    absl::StatusOr<uint32_t> gid =
        slurm::ResolveRunAs(o.gid, "gid", getuid(), sbatch::LookupGroupId);
    if (!gid.ok()) {
      return gid.status();
    }
    o.run_as_gid = *gid;
  }
  return absl::OkStatus();
}

int RunSrun(const std::vector<std::string>& args, const std::string& controller, std::ostream& out,
            std::ostream& err) {
  std::map<std::string, std::string> env = client::ProcessEnvironment();
  client::AddCallerUmask(env);  // the tasks' files get the caller's mask, as with Slurm's srun
  // The site's SPANK plugins (local context): their options are srun's too.
  absl::StatusOr<std::unique_ptr<client::FrontEndSpank>> spank =
      client::FrontEndSpank::Start("srun", S_CTX_LOCAL);
  if (!spank.ok()) {
    client::PrintPrefixed("srun: ", spank.status().message(), err);
    return 1;
  }
  SrunInput input;
  input.env = env;
  input.plugin_options = (*spank)->options();
  input.now = absl::Now();  // --deadline=now+1hour, 16:00
  input.tz = absl::LocalTimeZone();
  absl::StatusOr<SrunOptions> options = ParseSrunArgs(args, input);
  if (!options.ok()) {
    client::PrintCliError("srun", options.status().message(), err);
    return slurm::ExitCodeOf(options.status());
  }
  if (options->info != slurm::InfoRequest::kNone) {
    out << (options->info == slurm::InfoRequest::kHelp
                ? (*spank)->WithPluginHelp(SrunInfoText(options->info), "GPU scheduling options:")
                : SrunInfoText(options->info));
    return slurm::InfoExitCode(options->info);
  }
  if (absl::Status s = (*spank)->ApplyOptions(options->plugin_options, env); !s.ok()) {
    client::PrintPrefixed("srun: ", s.message(), err);
    return absl::IsInvalidArgument(s) ? 255 : 1;  // as srun 22.05 exits for each
  }
  if (absl::Status s = ResolveUidAndGid(*options); !s.ok()) {
    client::PrintCliError("srun", s.message(), err);
    return slurm::ExitCodeOf(s);
  }
  // Block Ctrl-C before gRPC starts threads, so only this thread sees it (polled below).
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &block, nullptr);

  absl::StatusOr<client::ControllerClient> client = client::ConnectOrSay("srun", err, controller);
  if (!client.ok()) {
    return 1;
  }
  const std::string cwd = client::CurrentDirectory();
  if (options->test_only) {
    return TestOnly(*client, BuildAllocationSpec(*options, cwd, os::Hostname(true)), err);
  }
  uint32_t job_id = options->jobid.value_or(0);
  if (job_id == 0) {
    if (auto it = env.find("SLURM_JOB_ID"); it != env.end()) {
      (void)absl::SimpleAtoi(it->second, &job_id);
    }
  }
  const bool own_allocation = job_id == 0;
  if (!own_allocation && !options->nodes && !options->ntasks && !options->ntasks_per_node) {
    // Inside an allocation with no layout of its own, srun takes the job's (its input
    // environment: SLURM_NTASKS is -n, SLURM_NTASKS_PER_NODE is --ntasks-per-node).
    auto from_env = [&env](const char* name) -> std::optional<int> {
      int value = 0;
      auto it = env.find(name);
      if (it != env.end() && absl::SimpleAtoi(it->second, &value) && value > 0) {
        return value;
      }
      return std::nullopt;
    };
    options->ntasks = from_env("SLURM_NTASKS");
    options->ntasks_per_node = from_env("SLURM_NTASKS_PER_NODE");
  }
  if (own_allocation) {
    canopy::v1::SubmitJobRequest submit;
    *submit.mutable_spec() = BuildAllocationSpec(*options, cwd, os::Hostname(true));
    absl::StatusOr<canopy::v1::SubmitJobResponse> submitted = client->SubmitJob(submit);
    if (!submitted.ok()) {
      client::PrintAllocationRefusal("srun: error: ", "srun: error: Unable to allocate resources: ",
                                     submitted.status().message(), err);
      return 1;
    }
    job_id = submitted->job_id();
    if (absl::Status s = WaitForAllocation(*client, job_id, err); !s.ok()) {
      err << "srun: error: Unable to allocate resources: " << s.message() << "\n";
      return 1;
    }
  }
  auto complete = [&](int exit_code) {
    if (own_allocation) {
      canopy::v1::CompleteJobRequest done;
      done.set_job_id(job_id);
      done.set_exit_code(exit_code);
      if (absl::Status s = client->CompleteJob(done); !s.ok()) {
        err << "srun: error: Unable to complete job " << job_id << ": " << s.message() << "\n";
      }
    }
  };

  const bool local = client->IsLocal();
  absl::StatusOr<auth::StepIoServerTls> io_tls =
      PrepareStepIo(client->security().tls_enabled() && !local);
  if (!io_tls.ok()) {
    err << "srun: error: " << io_tls.status().message() << "\n";
    complete(1);
    return 1;
  }
  const std::string& token = io_tls->token;
  StepIoServer io(token);
  absl::StatusOr<int> port = io.Start(local ? "127.0.0.1" : "0.0.0.0", io_tls->credentials);
  if (!port.ok()) {
    err << "srun: error: " << port.status().message() << "\n";
    complete(1);
    return 1;
  }
  canopy::v1::CreateStepRequest step_request = BuildStepRequest(*options, job_id, env, cwd);
  // The plugins' options travel in the step's environment, whatever --export says.
  for (auto& [name, value] : (*spank)->JobEnvironment()) {
    (*step_request.mutable_environment())[name] = value;
  }
  {
    spank::JobItems items;
    items.uid = getuid();
    items.gid = getgid();
    items.job_id = job_id;
    if (options->ntasks.has_value()) {
      items.total_task_count = static_cast<uint32_t>(*options->ntasks);
    } else if (!own_allocation) {
      // No -n: a task per node of the step (the job's nodes unless -N), or --ntasks-per-node.
      int nodes = options->nodes.value_or(0);
      if (auto it = env.find("SLURM_NNODES"); nodes <= 0 && it != env.end()) {
        (void)absl::SimpleAtoi(it->second, &nodes);
      }
      items.total_task_count =
          static_cast<uint32_t>(std::max(nodes, 0) * options->ntasks_per_node.value_or(1));
    }
    if (options->nodes.has_value()) {
      items.nnodes = static_cast<uint32_t>(*options->nodes);
    }
    if (absl::Status s = (*spank)->LocalUserInit(items, options->command); !s.ok()) {
      client::PrintPrefixed("srun: ", s.message(), err);
      complete(1);
      return 1;
    }
  }
  step_request.set_io_address(absl::StrCat(client->AddressSeenByNodes(), ":", *port));
  step_request.set_io_token(token);
  absl::StatusOr<canopy::v1::CreateStepResponse> step = client->CreateStep(step_request);
  if (!step.ok()) {
    err << "srun: error: Unable to create step for job " << job_id << ": "
        << step.status().message() << "\n";
    complete(1);
    return 1;
  }
  auto cancel_step = [&](int signal) {
    canopy::v1::CancelStepRequest cancel;
    cancel.set_job_id(job_id);
    cancel.set_step_id(step->step_id());
    cancel.set_signal(signal);
    (void)client->CancelStep(cancel);
  };

  TaskOutputBuffer buffer(options->label ? LabelWidth(step->ntasks()) : 0);
  std::vector<TaskEnd> ends;
  std::set<int> ended;
  std::set<std::string> attached;
  int detached = 0;
  bool failed_launch = false;
  int interrupts = 0;
  const absl::Time attach_deadline = absl::Now() + kAttachTimeout;
  const size_t expected_nodes = static_cast<size_t>(step->nodes_size());
  while (static_cast<int>(ended.size()) < step->ntasks()) {
    if (const int sig = PendingSignal(); sig != 0) {
      // First Ctrl-C forwards the signal; a second one kills the step.
      ++interrupts;
      io.SignalAll(interrupts == 1 ? sig : SIGKILL);
      cancel_step(interrupts == 1 ? sig : 0);
      if (interrupts > 1) {
        err << "srun: forcing job termination\n";
      }
    }
    if (attached.size() < expected_nodes && absl::Now() > attach_deadline) {
      err << "srun: error: only " << attached.size() << " of " << expected_nodes
          << " nodes attached to srun within " << absl::FormatDuration(kAttachTimeout)
          << "; cancelling step " << job_id << "." << step->step_id() << "\n";
      cancel_step(0);
      io.Shutdown();
      complete(1);
      return 1;
    }
    std::optional<StepIoEvent> e = io.Next(absl::Milliseconds(100));
    if (!e) {
      continue;
    }
    switch (e->kind) {
      case StepIoEvent::Kind::kAttached:
        attached.insert(e->node);
        break;
      case StepIoEvent::Kind::kOutput:
        if (options->unbuffered && !options->label) {
          (e->stream == 1 ? err : out) << e->data;
        } else {
          (e->stream == 1 ? err : out) << buffer.Append(e->rank, e->stream, e->data);
        }
        (e->stream == 1 ? err : out).flush();
        break;
      case StepIoEvent::Kind::kExited:
        if (ended.insert(e->rank).second) {
          ends.push_back(TaskEnd{e->rank, e->node, e->exit_code, e->exit_signal});
        }
        break;
      case StepIoEvent::Kind::kLaunchFailed:
        err << "srun: error: " << e->node << ": task launch failed: " << e->message << "\n";
        failed_launch = true;
        for (int rank : e->ranks) {
          if (ended.insert(rank).second) {
            ends.push_back(TaskEnd{rank, e->node, 1, 0});
          }
        }
        break;
      case StepIoEvent::Kind::kDetached:
        ++detached;
        break;
      case StepIoEvent::Kind::kNotice:  // scontrol notify, in Slurm's words
        err << "srun: " << e->message << "\n";
        err.flush();
        break;
    }
    if (failed_launch) {
      break;
    }
    // Every node gone while tasks are unaccounted for: nothing more will come.
    if (detached >= static_cast<int>(expected_nodes) && expected_nodes > 0 &&
        static_cast<int>(ended.size()) < step->ntasks()) {
      err << "srun: error: lost contact with the step's nodes\n";
      for (int r = 0; r < step->ntasks(); ++r) {
        if (ended.insert(r).second) {
          ends.push_back(TaskEnd{r, "unknown", 1, 0});
        }
      }
    }
  }
  if (failed_launch) {
    cancel_step(0);
  }
  out << buffer.Flush(0);
  err << buffer.Flush(1);
  io.Shutdown();
  StepSummary summary = SummarizeStep(ends);
  for (const std::string& m : summary.messages) {
    err << "srun: error: " << m << "\n";
  }
  const int rc = failed_launch ? std::max(1, summary.exit_code) : summary.exit_code;
  complete(rc);
  return rc;
}

}  // namespace canopy::ctl::srun
