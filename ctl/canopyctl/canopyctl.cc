#include "ctl/canopyctl/canopyctl.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <system_error>

#include "absl/time/clock.h"
#include "ctl/canopyctl/install_links.h"
#include "ctl/canopyctl/options.h"
#include "ctl/canopyctl/render.h"
#include "ctl/client/controller_client.h"
#include "ctl/srun/srun.h"

namespace canopy::ctl::canopyctl {
namespace {

constexpr int kUsageExit = 2;

using client::ControllerClient;

// Prints a failed RPC as canopyctl does.
int Failed(const absl::Status& status, std::ostream& err) {
  err << "canopyctl: " << status.message() << "\n";
  return 1;
}

int UsageFailed(const absl::Status& status, std::ostream& err) {
  err << status.message() << "\n";
  return kUsageExit;
}

int NodesCommand(ControllerClient& client, const std::vector<std::string>& args, std::ostream& out,
                 std::ostream& err) {
  absl::StatusOr<canopy::v1::ListNodesRequest> request = ParseNodesArgs(args);
  if (!request.ok()) {
    return UsageFailed(request.status(), err);
  }
  absl::StatusOr<canopy::v1::ListNodesResponse> nodes = client.ListNodes(*request);
  if (!nodes.ok()) {
    return Failed(nodes.status(), err);
  }
  out << RenderNodesTable(*nodes);
  return 0;
}

int TopologyCommand(ControllerClient& client, const std::vector<std::string>& args,
                    std::ostream& out, std::ostream& err) {
  absl::StatusOr<canopy::v1::GetTopologyResponse> topo =
      client.GetTopology(ParseTopologyArgs(args));
  if (!topo.ok()) {
    return Failed(topo.status(), err);
  }
  absl::StatusOr<canopy::v1::ListNodesResponse> nodes = client.ListNodes({});
  if (!nodes.ok()) {
    return Failed(nodes.status(), err);
  }
  out << RenderTopologyTree(*topo, *nodes);
  return 0;
}

int NodeUpdateCommand(ControllerClient& client, canopy::v1::UpdateNodeRequest::Action action,
                      const std::string& verb, const std::vector<std::string>& args,
                      std::ostream& out, std::ostream& err) {
  absl::StatusOr<canopy::v1::UpdateNodeRequest> request = ParseNodeUpdateArgs(verb, args);
  if (!request.ok()) {
    return UsageFailed(request.status(), err);
  }
  request->set_action(action);
  absl::StatusOr<canopy::v1::UpdateNodeResponse> r = client.UpdateNode(*request);
  if (!r.ok()) {
    return Failed(r.status(), err);
  }
  out << RenderNodeUpdate(verb, *r);
  return 0;
}

int JobsCommand(ControllerClient& client, const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err) {
  absl::StatusOr<canopy::v1::ListJobsRequest> request = ParseJobsArgs(args);
  if (!request.ok()) {
    return UsageFailed(request.status(), err);
  }
  absl::StatusOr<canopy::v1::ListJobsResponse> jobs = client.ListJobs(*request);
  if (!jobs.ok()) {
    return Failed(jobs.status(), err);
  }
  out << RenderJobsTable(*jobs);
  return 0;
}

int JobCommand(ControllerClient& client, const std::vector<std::string>& args, std::ostream& out,
               std::ostream& err) {
  absl::StatusOr<uint32_t> id = ParseJobArgs(args);
  if (!id.ok()) {
    return UsageFailed(id.status(), err);
  }
  absl::StatusOr<canopy::v1::Job> job = client.GetJob(*id);
  if (!job.ok()) {
    return Failed(job.status(), err);
  }
  out << RenderJobDetails(*job, absl::Now(), absl::LocalTimeZone());
  return 0;
}

int CancelCommand(ControllerClient& client, const std::vector<std::string>& args, std::ostream& out,
                  std::ostream& err) {
  absl::StatusOr<canopy::v1::CancelJobRequest> request = ParseCancelArgs(args);
  if (!request.ok()) {
    return UsageFailed(request.status(), err);
  }
  absl::StatusOr<canopy::v1::CancelJobResponse> response = client.CancelJob(*request);
  if (!response.ok()) {
    return Failed(response.status(), err);
  }
  int rc = 0;
  for (const canopy::v1::CancelResult& r : response->results()) {
    if (r.ok()) {
      out << "cancelled " << r.job_id() << "\n";
    } else {
      err << "job " << r.job_id() << ": " << r.error() << "\n";
      rc = 1;
    }
  }
  return rc;
}

int InstallLinksCommand(const std::vector<std::string>& args, std::ostream& out,
                        std::ostream& err) {
  InstallLinksOptions options;
  if (absl::Status s = ParseInstallLinksArgs(args, options); !s.ok()) {
    err << s.message() << "\n";
    return kUsageExit;
  }
  // The links name this very binary, by its absolute path.
  std::error_code ec;
  options.target = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) {
    err << "canopyctl install-links: cannot tell where canopyctl is: " << ec.message() << "\n";
    return 1;
  }
  if (absl::Status s = InstallLinks(options, out); !s.ok()) {
    err << "canopyctl install-links: " << s.message() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

int RunCanopyctl(const std::vector<std::string>& all_args, std::ostream& out, std::ostream& err) {
  const CommandLine line = SplitCommandLine(all_args);
  const std::vector<std::string>& args = line.args;
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    (args.empty() ? err : out) << kUsage;
    return args.empty() ? kUsageExit : 0;
  }
  if (args[0] == "--version" || args[0] == "-V" || args[0] == "version") {
    out << "canopyctl " << CANOPY_VERSION << " (Slurm 22.05.8's commands as sbatch, squeue, ...)\n";
    return 0;
  }
  const std::string command = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "run") {
    return srun::RunSrun(rest, line.controller, out, err);
  }
  if (command == "install-links") {
    return InstallLinksCommand(rest, out, err);
  }
  if (command == "completion") {
    if (rest.size() != 1 || rest[0] != "bash") {
      err << "canopyctl completion: expected 'bash' (the only shell it writes for)\n";
      return kUsageExit;
    }
    out << BashCompletion();
    return 0;
  }
  if (std::none_of(Commands().begin(), Commands().end(),
                   [&](const CommandWords& c) { return command == c.command; })) {
    err << "canopyctl: unknown command '" << command << "'\n" << kUsage;
    return kUsageExit;
  }
  absl::StatusOr<ControllerClient> client = ControllerClient::Connect(line.controller);
  if (!client.ok()) {
    return Failed(client.status(), err);
  }
  if (command == "nodes") {
    return NodesCommand(*client, rest, out, err);
  }
  if (command == "topology") {
    return TopologyCommand(*client, rest, out, err);
  }
  if (command == "jobs") {
    return JobsCommand(*client, rest, out, err);
  }
  if (command == "job") {
    return JobCommand(*client, rest, out, err);
  }
  if (command == "cancel") {
    return CancelCommand(*client, rest, out, err);
  }
  if (command == "whoami") {
    absl::StatusOr<canopy::v1::WhoAmIResponse> me = client->WhoAmI();
    if (!me.ok()) {
      return Failed(me.status(), err);
    }
    out << RenderWhoAmI(*me);
    return 0;
  }
  if (command == "ping") {
    absl::StatusOr<canopy::v1::PingResponse> p = client->Ping();
    if (!p.ok()) {
      return Failed(p.status(), err);
    }
    out << RenderPing(*p, client->target());
    return 0;
  }
  using Request = canopy::v1::UpdateNodeRequest;
  const Request::Action action = command == "drain"  ? Request::ACTION_DRAIN
                                 : command == "down" ? Request::ACTION_DOWN
                                                     : Request::ACTION_RESUME;
  return NodeUpdateCommand(*client, action, command, rest, out, err);
}

}  // namespace canopy::ctl::canopyctl
