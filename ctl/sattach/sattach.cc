#include "ctl/sattach/sattach.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/os/hostname.h"
#include "ctl/client/cli_error.h"
#include "ctl/client/connect_or_say.h"
#include "ctl/client/controller_client.h"
#include "ctl/sattach/options.h"
#include "ctl/srun/step_io_server.h"
#include "ctl/srun/step_output.h"

namespace canopy::ctl::sattach {
namespace {

// How often sattach asks whether the step still runs while waiting for output: a node whose
// part ended before the request reached it never attaches, nor does one whose agent restarted.
constexpr absl::Duration kStepCheck = absl::Seconds(5);

canopy::v1::AttachStepRequest RequestFor(const SattachOptions& options) {
  canopy::v1::AttachStepRequest request;
  request.set_job_id(options.job_id);
  request.set_step_id(options.step_id);
  return request;
}

// Shows the step's output until it ends. Returns sattach's exit code.
int Follow(const SattachOptions& options, client::ControllerClient& client,
           const canopy::v1::AttachStepResponse& step, srun::StepIoServer& io, std::ostream& out,
           std::ostream& err) {
  srun::TaskOutputBuffer buffer(options.label ? srun::LabelWidth(step.ntasks()) : 0);
  std::set<int> ended;
  std::set<std::string> attached;
  int detached = 0;
  int exit_code = 0;
  absl::Time next_check = absl::Now() + kStepCheck;
  while (static_cast<int>(ended.size()) < step.ntasks()) {
    std::optional<srun::StepIoEvent> e = io.Next(absl::Milliseconds(200));
    if (!e.has_value()) {
      if (absl::Now() > next_check) {
        next_check = absl::Now() + kStepCheck;
        if (!client.AttachStep(RequestFor(options)).ok()) {
          break;  // the step has ended; what its nodes still had was shown
        }
      }
      continue;
    }
    switch (e->kind) {
      case srun::StepIoEvent::Kind::kAttached:
        attached.insert(e->node);
        break;
      case srun::StepIoEvent::Kind::kOutput:
        if (PassesFilter(options, e->rank, e->stream == 1)) {
          std::ostream& to = e->stream == 1 ? err : out;
          to << buffer.Append(e->rank, e->stream, e->data);
          to.flush();
        }
        break;
      case srun::StepIoEvent::Kind::kExited:
        if (ended.insert(e->rank).second) {
          if (options.verbose > 0) {
            err << "sattach: 1 tasks finished (rc=" << e->exit_code << ")\n";
          }
          if (e->exit_code != 0) {
            err << "sattach: error: task " << e->rank << " exited with exit code " << e->exit_code
                << "\n";
            exit_code = std::max(exit_code, e->exit_code);
          }
        }
        break;
      case srun::StepIoEvent::Kind::kLaunchFailed:
      case srun::StepIoEvent::Kind::kNotice:
        break;
      case srun::StepIoEvent::Kind::kDetached:
        ++detached;
        break;
    }
    // Every node that attached is gone: nothing more will come.
    if (!attached.empty() && detached >= static_cast<int>(attached.size()) &&
        attached.size() >= static_cast<size_t>(step.nodes_size())) {
      break;
    }
  }
  out << buffer.Flush(0);
  err << buffer.Flush(1);
  return exit_code;
}

}  // namespace

int RunSattach(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  SattachError error;
  absl::StatusOr<SattachOptions> options = ParseSattachArgs(args, &error);
  if (!options.ok()) {
    client::PrintCliError("sattach", error.message, err);
    if (error.print_usage) {
      out << SattachInfoText(Info::kUsage);
    }
    return 1;
  }
  if (options->info != Info::kNone) {
    out << SattachInfoText(options->info);
    return 0;
  }
  absl::StatusOr<client::ControllerClient> client = client::ConnectOrSay("sattach", err);
  if (!client.ok()) {
    return 1;
  }
  canopy::v1::AttachStepRequest request = RequestFor(*options);
  if (options->layout) {
    absl::StatusOr<canopy::v1::AttachStepResponse> step = client->AttachStep(request);
    if (!step.ok()) {
      err << "sattach: error: Could not get job step info: " << step.status().message() << "\n";
      return 1;
    }
    out << LayoutText(*step);
    return 0;
  }
  const bool local = client->IsLocal();
  absl::StatusOr<auth::StepIoServerTls> io_tls =
      srun::PrepareStepIo(client->security().tls_enabled() && !local);
  if (!io_tls.ok()) {
    err << "sattach: error: " << io_tls.status().message() << "\n";
    return 1;
  }
  const std::string& token = io_tls->token;
  srun::StepIoServer io(token);
  absl::StatusOr<int> port = io.Start(local ? "127.0.0.1" : "0.0.0.0", io_tls->credentials);
  if (!port.ok()) {
    err << "sattach: error: " << port.status().message() << "\n";
    return 1;
  }
  request.set_io_address(absl::StrCat(client->AddressSeenByNodes(), ":", *port));
  request.set_io_token(token);
  absl::StatusOr<canopy::v1::AttachStepResponse> step = client->AttachStep(request);
  if (!step.ok()) {
    err << "sattach: error: Could not get job step info: " << step.status().message() << "\n";
    io.Shutdown();
    return 1;
  }
  const int rc = Follow(*options, *client, *step, io, out, err);
  io.Shutdown();
  return rc;
}

}  // namespace canopy::ctl::sattach
