// scontrol's read-only commands against canopyd (info_commands.h).
#include "ctl/scontrol/info_commands.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "common/slurm/hostlist.h"
#include "ctl/client/connect_or_say.h"
#include "ctl/client/controller_client.h"
#include "ctl/scontrol/show_config.h"
#include "ctl/scontrol/show_node.h"
#include "ctl/scontrol/show_partition.h"
#include "ctl/scontrol/show_steps.h"

namespace canopy::ctl::scontrol {
namespace {

absl::StatusOr<std::vector<canopy::v1::Node>> LoadNodes(client::ControllerClient& client,
                                                        std::ostream& err) {
  absl::StatusOr<canopy::v1::ListNodesResponse> nodes = client.ListNodes({});
  if (!nodes.ok()) {
    err << "slurm_load_node error: " << nodes.status().message() << "\n";
    return nodes.status();
  }
  return std::vector<canopy::v1::Node>(nodes->nodes().begin(), nodes->nodes().end());
}

// The cluster's PreemptMode, for partitions that set none; Slurm's default when canopyd's
// configuration does not say.
std::string ClusterPreemptMode(client::ControllerClient& client) {
  absl::StatusOr<canopy::v1::GetConfigResponse> config = client.GetConfig();
  if (config.ok()) {
    for (const canopy::v1::ConfigEntry& e : config->entries()) {
      if (e.key() == "PreemptMode") {
        return e.value();
      }
    }
  }
  return "OFF";
}

}  // namespace

int ShowNodes(const std::vector<std::string>& args, const InfoOptions& options, std::ostream& out,
              std::ostream& err) {
  std::optional<std::vector<std::string>> wanted;
  if (!args.empty()) {
    absl::StatusOr<std::vector<std::string>> names = slurm::ExpandHostlist(args[0]);
    if (!names.ok()) {
      err << "unable to parse node list " << args[0] << "\n";
      return 1;
    }
    wanted = *std::move(names);
  }
  absl::StatusOr<client::ControllerClient> client = client::ConnectOrSay("scontrol", err);
  if (!client.ok()) {
    return 1;
  }
  absl::StatusOr<std::vector<canopy::v1::Node>> nodes = LoadNodes(*client, err);
  if (!nodes.ok()) {
    return 1;
  }
  const absl::TimeZone tz = absl::LocalTimeZone();
  if (!wanted.has_value()) {
    for (const canopy::v1::Node& n : *nodes) {
      out << RenderNode(n, tz, options.one_liner);
    }
    if (nodes->empty() && !options.quiet) {
      out << "No nodes in the system\n";
    }
    return 0;
  }
  int rc = 0;
  for (const std::string& name : *wanted) {
    bool found = false;
    for (const canopy::v1::Node& n : *nodes) {
      if (n.name() == name) {
        out << RenderNode(n, tz, options.one_liner);
        found = true;
        break;
      }
    }
    if (!found) {
      rc = 1;
      if (!options.quiet) {
        out << "Node " << name << " not found\n";
      }
    }
  }
  return rc;
}

int ShowPartitions(const std::vector<std::string>& args, const InfoOptions& options,
                   std::ostream& out, std::ostream& err) {
  absl::StatusOr<client::ControllerClient> client = client::ConnectOrSay("scontrol", err);
  if (!client.ok()) {
    return 1;
  }
  absl::StatusOr<canopy::v1::ListPartitionsResponse> parts = client->ListPartitions();
  if (!parts.ok()) {
    err << "slurm_load_partitions error: " << parts.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<std::vector<canopy::v1::Node>> nodes = LoadNodes(*client, err);
  if (!nodes.ok()) {
    return 1;
  }
  std::optional<std::string> preempt_mode;  // asked for once, only if a partition needs it
  int shown = 0;
  for (const canopy::v1::Partition& p : parts->partitions()) {
    if (!args.empty() && p.name() != args[0]) {
      continue;
    }
    if (p.preempt_mode().empty() && !preempt_mode.has_value()) {
      preempt_mode = ClusterPreemptMode(*client);
    }
    out << RenderPartition(p, *nodes, preempt_mode.value_or("OFF"), options.one_liner);
    ++shown;
  }
  if (shown == 0 && !args.empty()) {
    if (!options.quiet) {
      out << "Partition " << args[0] << " not found\n";
    }
    return 1;
  }
  if (shown == 0 && !options.quiet) {
    out << "No partitions in the system\n";
  }
  return 0;
}

int ShowConfig(std::ostream& out, std::ostream& err) {
  absl::StatusOr<client::ControllerClient> client = client::ConnectOrSay("scontrol", err);
  if (!client.ok()) {
    return 1;
  }
  absl::StatusOr<canopy::v1::GetConfigResponse> config = client->GetConfig();
  if (!config.ok()) {
    err << "slurm_load_ctl_conf error: " << config.status().message() << "\n";
    return 1;
  }
  out << RenderConfig(*config, absl::LocalTimeZone());
  return 0;
}

int ShowReservations(const std::vector<std::string>& args, const InfoOptions& options,
                     std::ostream& out) {
  if (!args.empty()) {
    if (!options.quiet) {
      out << "Reservation " << args[0] << " not found\n";
    }
    return 1;
  }
  if (!options.quiet) {
    out << "No reservations in the system\n";
  }
  return 0;
}

int ShowSteps(const std::vector<std::string>& args, const InfoOptions& options, std::ostream& out,
              std::ostream& err) {
  std::optional<StepTarget> target;
  if (!args.empty()) {
    absl::StatusOr<StepTarget> parsed = ParseStepTarget(args[0]);
    if (!parsed.ok()) {
      err << parsed.status().message() << "\n";
      return 1;
    }
    target = *parsed;
  }
  absl::StatusOr<client::ControllerClient> client = client::ConnectOrSay("scontrol", err);
  if (!client.ok()) {
    return 1;
  }
  canopy::v1::ListJobsRequest request;
  if (target.has_value() && !target->task.has_value()) {
    request.add_job_ids(target->job_id);
  }
  absl::StatusOr<canopy::v1::ListJobsResponse> jobs = client->ListJobs(request);
  if (!jobs.ok()) {
    err << "slurm_get_job_steps error: " << jobs.status().message() << "\n";
    return 1;
  }
  const absl::TimeZone tz = absl::LocalTimeZone();
  bool job_found = false;
  int shown = 0;
  for (const canopy::v1::Job& job : jobs->jobs()) {
    if (target.has_value()) {
      const bool match = target->task.has_value() ? job.array_job_id() == target->job_id &&
                                                        job.array_task_id() == *target->task
                                                  : job.job_id() == target->job_id;
      if (!match) {
        continue;
      }
    }
    job_found = true;
    const bool one_step = target.has_value() && (target->step_id.has_value() || target->batch);
    for (const canopy::v1::JobStep& step : job.steps()) {
      if (one_step && (target->batch || step.step_id() != *target->step_id)) {
        continue;
      }
      out << RenderStep(job, step, tz, options.one_liner);
      ++shown;
    }
    // The batch script's step comes after the numbered ones, as Slurm lists them.
    if (HasBatchStep(job) && (!one_step || target->batch)) {
      out << RenderBatchStep(job, tz, options.one_liner);
      ++shown;
    }
  }
  if (shown > 0) {
    return 0;
  }
  if (!target.has_value()) {
    if (!options.quiet) {
      out << "No job steps in the system\n";
    }
    return 0;
  }
  // canopyd does not know the job at all: Slurm's controller answers ESLURM_INVALID_JOB_ID.
  if (!job_found) {
    err << "slurm_get_job_steps error: Invalid job id specified\n";
    return 1;
  }
  if (!options.quiet) {
    out << StepNotFound(*target) << "\n";
  }
  return 1;
}

}  // namespace canopy::ctl::scontrol
