// Admission: checking and resolving a submitted spec, and queueing its job(s) (admission.h).
#include "scheduler/lifecycle/admission.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/slurm/array_spec.h"
#include "common/slurm/hostlist.h"
#include "scheduler/lifecycle/dependencies.h"
#include "scheduler/lifecycle/launch.h"
#include "scheduler/lifecycle/qos_limits.h"
#include "scheduler/lifecycle/submit_limits.h"

namespace canopy::lifecycle {
namespace {

absl::StatusOr<std::vector<core::NodeId>> ResolveNodes(const std::string& hostlist,
                                                       const topology::Topology& topology,
                                                       absl::string_view field) {
  std::vector<core::NodeId> ids;
  if (hostlist.empty()) {
    return ids;
  }
  absl::StatusOr<std::vector<std::string>> names = slurm::ExpandHostlist(hostlist);
  if (!names.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": '", hostlist, "' is not a hostlist: ", names.status().message()));
  }
  for (const std::string& name : *names) {
    const core::NodeId id = topology.FindNode(name);
    if (!id.valid()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Batch job submission failed: Invalid node name specified (", field,
                       " names ", name, ", which is not a node of this cluster)"));
    }
    ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

const config::PartitionConfig* FindPartition(const config::ClusterConfig& config,
                                             const std::string& name) {
  if (name.empty()) {
    for (const config::PartitionConfig& p : config.partitions) {
      if (p.is_default) {
        return &p;
      }
    }
    return config.partitions.empty() ? nullptr : &config.partitions.front();
  }
  for (const config::PartitionConfig& p : config.partitions) {
    if (p.name == name) {
      return &p;
    }
  }
  return nullptr;
}

// execve passes NUL-terminated strings and splits the environment at '=': anything else could
// not reach the job as written.
absl::Status CheckExecStrings(const core::JobSpec& spec) {
  for (const auto& [key, value] : spec.environment) {
    if (key.empty() || absl::StrContains(key, '=') || absl::StrContains(key, '\0')) {
      return absl::InvalidArgumentError(absl::StrCat(
          "environment: '", absl::CEscape(key), "' is not a variable name (empty, or with '=')"));
    }
    if (absl::StrContains(value, '\0')) {
      return absl::InvalidArgumentError(
          absl::StrCat("environment: the value of ", key, " contains a NUL byte"));
    }
  }
  for (size_t i = 0; i < spec.argv.size(); ++i) {
    if (absl::StrContains(spec.argv[i], '\0')) {
      return absl::InvalidArgumentError(absl::StrCat("argv[", i, "] contains a NUL byte"));
    }
  }
  return absl::OkStatus();
}

// True if some node of the partition could ever hold one node's share of `r`.
bool AnyNodeFits(const core::ResourceRequest& r, const config::PartitionConfig& part,
                 const config::ClusterConfig& config, const topology::Topology& topology) {
  for (const std::string& name : part.nodes) {
    const core::NodeId id = topology.FindNode(name);
    if (!id.valid()) {
      continue;
    }
    const config::NodeConfig& n = config.nodes[id.value()];
    int gpus = 0;
    for (const config::GpuConfig& g : n.gpus) {
      if (r.gpu_type.empty() || g.type == r.gpu_type) {
        gpus += g.count;
      }
    }
    if (gpus >= r.gpus_per_node && n.cpus >= r.cpus_per_node &&
        n.real_memory_mib >= r.mem_per_node_mib) {
      return true;
    }
  }
  return false;
}

// The spec a queued job keeps: as submitted (dependencies resolved), with the account it was
// admitted under and Slurm's default name. Made once per submission and shared by the job, the
// probe that admits its QOS and every task of an array (core::SharedSpec). The submitted spec is
// changed in place when the request held it alone: its allocation was made on the RPC thread
// that converted the request (FromProto), not on the owner thread.
core::SharedSpec QueuedSpec(core::SharedSpec spec, const std::string& account) {
  core::JobSpec& queued = spec.Mutable();
  queued.account = account;  // the default account when none was named
  if (queued.name.empty()) {
    queued.name = queued.script.empty() ? "interactive" : "sbatch";
  }
  return spec;
}

// The record of a job about to be queued (array fields aside).
core::Job NewJob(const LifecycleState& s, const core::SharedSpec& spec,
                 const SubmitRequest& request, const Caller& caller, const ResolvedSpec& resolved,
                 const std::string& qos, core::JobId id, absl::Time now) {
  core::Job job;
  job.id = id;
  job.spec = spec;
  job.resources = resolved.resources;
  job.user_id = caller.uid;
  job.group_id = caller.gid;
  job.user_name = caller.user_name;
  job.supplementary_gids = caller.groups;
  job.partition = resolved.partition->name;
  job.qos = qos;
  job.time_limit = resolved.time_limit;
  job.idempotency_key = request.idempotency_key;
  job.submit_time = now;
  job.eligible_time = now;
  // A hold comes first; a dependency or begin time is given its reason once the job is queued
  // (StartWaiting).
  job.reason = spec->hold ? core::JobReason::kJobHeldUser : resolved.blocked;
  job.priority = s.accounting.ComputePriority(job, now);
  return job;
}

absl::Status NeedIdentity(const LifecycleState& s, const Caller& caller) {
  if (caller.authenticated) {
    return absl::OkStatus();
  }
  return absl::PermissionDeniedError(
      absl::StrCat("submitting a job needs the caller's identity, which canopyd takes from its "
                   "unix socket (",
                   s.config->unix_socket,
                   "); run sbatch on the controller host, or point CANOPY_CONTROLLER at "
                   "unix:<that socket>"));
}

// The QOS a new job runs under; an error for a QOS it may not use, or when no limit would ever
// let it run (qos_limits.h).
absl::StatusOr<std::string> AdmitQos(const LifecycleState& s, const core::SharedSpec& spec,
                                     const SubmitRequest& request, const Caller& caller,
                                     const ResolvedSpec& resolved) {
  core::Job probe =
      NewJob(s, spec, request, caller, resolved, "", core::JobId(s.next_job_id), s.Now());
  absl::StatusOr<std::string> qos = ResolveQos(s, probe);
  if (!qos.ok()) {
    return qos.status();
  }
  probe.qos = *qos;
  if (absl::Status st = CheckNeverRunnable(s, probe); !st.ok()) {
    return st;
  }
  return qos;
}

// An array spec as submitted, within MaxArraySize (Slurm's ESLURM_INVALID_ARRAY words).
absl::StatusOr<slurm::ArraySpec> ParseSubmittedArray(const LifecycleState& s,
                                                     const std::string& text) {
  const int32_t max = s.config->scheduling.scheduler.max_array_size;
  absl::StatusOr<slurm::ArraySpec> array = slurm::ParseArraySpec(text, max);
  if (!array.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(array.status().message(), max == 0 ? " (MaxArraySize=0: arrays are off)" : "",
                     "\nBatch job submission failed: Invalid job array specification"));
  }
  return array;
}

}  // namespace

absl::StatusOr<WillRunAnswer> TestSubmit(const LifecycleState& s, const SubmitRequest& request,
                                         const Caller& caller) {
  if (absl::Status id = NeedIdentity(s, caller); !id.ok()) {
    return id;
  }
  // The submit limits of Submit (not at restore: a job accepted once stays accepted).
  if (absl::Status st = CheckRequestSizes(*request.spec, *s.config); !st.ok()) {
    return st;
  }
  size_t tasks = 1;
  if (!request.spec->array_spec.empty()) {
    absl::StatusOr<slurm::ArraySpec> array = ParseSubmittedArray(s, request.spec->array_spec);
    if (!array.ok()) {
      return array.status();
    }
    tasks = array->task_ids.size();
  }
  if (absl::Status st = CheckJobCount(s, tasks); !st.ok()) {
    return st;
  }
  if (absl::Status st = CheckScriptMemory(s); !st.ok()) {
    return st;
  }
  absl::StatusOr<ResolvedSpec> resolved = ResolveSpec(*request.spec, *s.config, *s.topology);
  if (!resolved.ok()) {
    return resolved.status();
  }
  absl::StatusOr<std::string> account =
      s.accounting.ResolveAccount(caller.user_name, request.spec->account);
  if (!account.ok()) {
    return account.status();
  }
  if (resolved->blocked != core::JobReason::kNone) {
    return absl::FailedPreconditionError(absl::StrCat("Job would pend for ever with reason ",
                                                      core::JobReasonName(resolved->blocked),
                                                      " (a partition limit it does not meet)"));
  }
  core::SharedSpec checked = request.spec;  // shared: copied at its first change
  if (absl::Status deps = ResolveDependencies(s, checked.Mutable()); !deps.ok()) {
    return deps;
  }
  const core::SharedSpec spec = QueuedSpec(std::move(checked), *account);
  absl::StatusOr<std::string> qos = AdmitQos(s, spec, request, caller, *resolved);
  if (!qos.ok()) {
    return qos.status();
  }
  const core::Job job =
      NewJob(s, spec, request, caller, *resolved, *qos, core::JobId(s.next_job_id), s.Now());
  absl::StatusOr<WillRunAnswer> answer = WillRun(s, job);
  // Like Slurm's will-run test, dependencies are not looked at; a begin time is.
  if (answer.ok() && job.spec->begin_time > answer->start) {
    answer->start = job.spec->begin_time;
  }
  return answer;
}

absl::StatusOr<ResolvedSpec> ResolveSpec(const core::JobSpec& spec,
                                         const config::ClusterConfig& config,
                                         const topology::Topology& topology) {
  ResolvedSpec out;
  core::ResourceRequest& c = out.resources;
  if (spec.min_nodes < 0 || spec.max_nodes < 0 || spec.ntasks < 0 || spec.ntasks_per_node < 0 ||
      spec.cpus_per_task < 0 || spec.gpus_per_node < 0 || spec.mem_per_node_mib < 0 ||
      spec.max_switches < 0) {
    return absl::InvalidArgumentError(
        "spec: node, task, CPU, GPU, memory and switch counts must not be negative");
  }
  if (absl::Status s = CheckExecStrings(spec); !s.ok()) {
    return s;
  }
  out.partition = FindPartition(config, spec.partition);
  if (out.partition == nullptr) {
    // sbatch prints each line after "sbatch: error: "; these are Slurm's own two lines.
    return absl::InvalidArgumentError(
        absl::StrCat("invalid partition specified: ",
                     spec.partition.empty() ? "(no default partition)" : spec.partition,
                     "\nBatch job submission failed: Invalid partition name specified"));
  }
  const config::PartitionConfig& part = *out.partition;
  c.min_nodes = std::max(1, spec.min_nodes);
  c.max_nodes = spec.max_nodes > 0 ? std::max(spec.max_nodes, c.min_nodes) : 0;
  if (spec.ntasks > 0 && spec.min_nodes == 0 && spec.ntasks_per_node > 0) {
    c.min_nodes = (spec.ntasks + spec.ntasks_per_node - 1) / spec.ntasks_per_node;
  }
  // -n N --ntasks-per-node=T on at most M nodes (-N) cannot place N > M x T tasks: slurmctld
  // refuses it rather than run fewer tasks than asked.
  if (spec.ntasks > 0 && spec.ntasks_per_node > 0 && spec.min_nodes > 0 &&
      int64_t{spec.ntasks} >
          int64_t{c.max_nodes > 0 ? c.max_nodes : c.min_nodes} * spec.ntasks_per_node) {
    return absl::InvalidArgumentError(
        "Batch job submission failed: Requested node configuration is not available");
  }
  if (spec.ntasks > 0 && spec.ntasks < c.min_nodes) {
    // sbatch: "can't run 2 processes on 4 nodes, setting nnodes to 2" (the task layout rule).
    c.min_nodes = spec.ntasks;
    c.max_nodes = c.max_nodes > 0 ? std::min(c.max_nodes, spec.ntasks) : 0;
  }
  c.gpus_per_node = spec.gpus_per_node;
  c.gpu_type = spec.gpu_type;
  const int32_t tasks_per_node =
      spec.ntasks_per_node > 0
          ? spec.ntasks_per_node
          : (spec.ntasks > 0 ? (spec.ntasks + c.min_nodes - 1) / c.min_nodes : 1);
  // -O: the tasks share one task's CPUs on each node (sbatch(1): "-c ... allocated per node
  // rather than being multiplied by the number of tasks").
  int64_t cpus_per_node =
      int64_t{std::max(1, spec.cpus_per_task)} * (spec.overcommit ? 1 : tasks_per_node);
  // --cpus-per-gpu: that many CPUs for each GPU the job gets on a node, at the least.
  if (spec.cpus_per_gpu > 0 && c.gpus_per_node > 0) {
    cpus_per_node = std::max(cpus_per_node, int64_t{spec.cpus_per_gpu} * c.gpus_per_node);
  }
  // No node has 2^31 CPUs: an absurd request stays absurd (AnyNodeFits refuses it) rather than
  // wrapping round to a small one.
  c.cpus_per_node =
      static_cast<int32_t>(std::min<int64_t>(cpus_per_node, std::numeric_limits<int32_t>::max()));
  c.mem_per_node_mib = spec.mem_per_node_mib;
  c.exclusive = spec.exclusive;
  c.partition = part.name;
  c.max_switches = spec.max_switches;
  if (spec.switches_wait.has_value()) {
    c.max_switch_wait = *spec.switches_wait;
  }
  absl::StatusOr<std::vector<core::NodeId>> required =
      ResolveNodes(spec.required_nodes, topology, "--nodelist");
  if (!required.ok()) {
    return required.status();
  }
  absl::StatusOr<std::vector<core::NodeId>> excluded =
      ResolveNodes(spec.excluded_nodes, topology, "--exclude");
  if (!excluded.ok()) {
    return excluded.status();
  }
  c.required_nodes = *std::move(required);
  c.excluded_nodes = *std::move(excluded);

  // Refuse what no node of the partition could ever hold, as sbatch does.
  if (!AnyNodeFits(c, part, config, topology)) {
    // Slurm's words only (sbatch prints them as they are); what was asked is in the request.
    return absl::InvalidArgumentError(
        "Batch job submission failed: Requested node configuration is not available");
  }

  // The time limit: the job's own, else the partition's DefaultTime, else its MaxTime.
  if (spec.time_limit.has_value() && *spec.time_limit <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("time_limit: must be positive (unset = partition default)");
  }
  out.time_limit = spec.time_limit.has_value()                     ? *spec.time_limit
                   : part.default_time != absl::InfiniteDuration() ? part.default_time
                                                                   : part.max_time;
  out.blocked = PartitionLimitReason(part, c.min_nodes, out.time_limit);
  return out;
}

core::JobReason PartitionLimitReason(const config::PartitionConfig& part, int32_t min_nodes,
                                     absl::Duration time_limit) {
  core::JobReason blocked = core::JobReason::kNone;
  if (!part.up) {
    blocked = core::JobReason::kPartitionDown;
  }
  if (time_limit > part.max_time) {
    blocked = core::JobReason::kPartitionTimeLimit;
  }
  const int64_t limit_nodes = part.max_nodes >= 0
                                  ? std::min<int64_t>(part.max_nodes, part.nodes.size())
                                  : static_cast<int64_t>(part.nodes.size());
  if (min_nodes > limit_nodes) {
    blocked = core::JobReason::kPartitionNodeLimit;
  }
  return blocked;
}

std::string IdempotencyIndexKey(uint32_t uid, absl::string_view key) {
  return absl::StrCat(uid, ":", key);
}

absl::StatusOr<SubmitAnswer> Submit(LifecycleState& s, SubmitRequest request, const Caller& caller,
                                    Effects& effects) {
  if (absl::Status id = NeedIdentity(s, caller); !id.ok()) {
    return id;
  }
  if (!request.idempotency_key.empty()) {
    if (auto it = s.idempotency.find(IdempotencyIndexKey(caller.uid, request.idempotency_key));
        it != s.idempotency.end()) {
      SubmitAnswer again;
      again.job_id = it->second;
      const core::Job* first = s.jobs.Find(it->second);
      if (first != nullptr && first->array_job_id != 0) {
        for (const auto& [id, job] : s.jobs.jobs()) {
          if (job->array_job_id == first->array_job_id) {
            again.array_task_job_ids.push_back(id);
          }
        }
      }
      return again;
    }
  }
  if (absl::Status st = CheckRequestSizes(*request.spec, *s.config); !st.ok()) {
    return st;
  }
  absl::StatusOr<ResolvedSpec> resolved = ResolveSpec(*request.spec, *s.config, *s.topology);
  if (!resolved.ok()) {
    return resolved.status();
  }
  // With its dependencies resolved; in place when the request held the spec alone.
  core::SharedSpec checked = std::move(request.spec);
  if (!checked->dependencies.empty()) {
    if (absl::Status deps = ResolveDependencies(s, checked.Mutable()); !deps.ok()) {
      return deps;
    }
  }
  absl::StatusOr<std::string> account =
      s.accounting.ResolveAccount(caller.user_name, checked->account);
  if (!account.ok()) {
    return account.status();
  }
  const core::SharedSpec spec = QueuedSpec(std::move(checked), *account);
  absl::StatusOr<std::string> qos = AdmitQos(s, spec, request, caller, *resolved);
  if (!qos.ok()) {
    return qos.status();
  }
  std::vector<uint32_t> task_ids = {0};
  int32_t max_running = 0;
  const bool is_array = !spec->array_spec.empty();
  if (is_array) {
    absl::StatusOr<slurm::ArraySpec> array = ParseSubmittedArray(s, spec->array_spec);
    if (!array.ok()) {
      return array.status();
    }
    task_ids = array->task_ids;
    max_running = array->max_running;
  }
  if (absl::Status st = CheckJobCount(s, task_ids.size()); !st.ok()) {
    return st;
  }
  if (absl::Status st = CheckScriptMemory(s); !st.ok()) {
    return st;
  }
  if (absl::Status st = CheckSubmitJobsLimit(s, caller, *account, task_ids.size()); !st.ok()) {
    return st;
  }
  if (max_running > 0) {
    s.has_throttled_arrays = true;
  }
  const absl::Time now = s.Now();
  SubmitAnswer answer;
  answer.job_id = core::JobId(s.next_job_id);
  for (uint32_t task : task_ids) {
    core::Job job =
        NewJob(s, spec, request, caller, *resolved, *qos, core::JobId(s.next_job_id++), now);
    if (is_array) {
      job.array_job_id = answer.job_id.value();
      job.array_task_id = task;
      answer.array_task_job_ids.push_back(job.id);
    }
    const core::JobId id = job.id;
    if (absl::Status added = s.jobs.Add(std::move(job)); !added.ok()) {
      return absl::InternalError(added.message());
    }
    s.Touch(id, effects);
    StartWaiting(s, id, effects);
  }
  if (!request.idempotency_key.empty()) {
    s.idempotency[IdempotencyIndexKey(caller.uid, request.idempotency_key)] = answer.job_id;
  }
  effects.next_id_changed = true;
  effects.schedule = true;
  effects.info.push_back(absl::StrCat(
      "job ", answer.job_id.value(),
      is_array ? absl::StrCat(" (array of ", task_ids.size(), ")") : "", " submitted by ",
      caller.user_name, ": ", resolved->resources.min_nodes, " node(s) x ",
      resolved->resources.gpus_per_node, " GPU(s) in ", resolved->partition->name));
  return answer;
}

}  // namespace canopy::lifecycle
