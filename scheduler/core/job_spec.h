// JobSpec: what a job asks for, as it was submitted (sbatch/srun options in brackets), and
// ResourceRequest: the same request resolved against the cluster, in the terms placement uses.
//
// JobSpec is kept for the life of the job and stored with it: the controller re-derives the
// ResourceRequest from it at every start-up, against the configuration of the day (node ids
// follow the configuration's order). What was decided at submission stays as Slurm keeps it:
// the partition a job was put in and its time limit (core::Job). Plain value types with no
// I/O; not thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "scheduler/core/ids.h"
#include "scheduler/core/shared_text.h"

namespace canopy::core {

// --dependency (docs/design/job_states.md, "Dependencies"): what must have happened to other
// jobs before this one may start.
enum class DependencyType {
  kAfter,       // the job left PENDING (started or was cancelled), + `delay`
  kAfterAny,    // the job ended, however
  kAfterOk,     // the job ended COMPLETED (exit 0)
  kAfterNotOk,  // the job ended otherwise (FAILED, CANCELLED, TIMEOUT, NODE_FAIL, ...)
  kAfterCorr,   // the task of array `job_id` with this job's own task id ended COMPLETED
  kSingleton,   // no other job of the same user and name is running, or pending ahead of it
};
enum class DependencyState { kWaiting, kSatisfied, kFailed };  // kFailed: can never be satisfied

struct Dependency {
  DependencyType type = DependencyType::kAfterAny;
  uint32_t job_id = 0;                    // 0 for kSingleton
  std::optional<uint32_t> array_task_id;  // one task of array `job_id` ("5_2")
  // `job_id` is an array and no task was named: every task of it counts (Slurm's "5_*"). Set
  // at submission.
  bool whole_array = false;
  absl::Duration delay = absl::ZeroDuration();  // after:ID+MINUTES
  // The one part of a spec that changes after submission: what became of the item. When the
  // list as a whole is satisfied every item is marked satisfied (Slurm empties the list then).
  DependencyState state = DependencyState::kWaiting;
  friend bool operator==(const Dependency&, const Dependency&) = default;
};

struct JobSpec {
  std::string name;       // -J; the controller fills "sbatch"/"interactive" when empty
  std::string partition;  // -p; "" = the default partition
  std::string account;    // -A
  std::string qos;        // -q, --qos; "" = the association's DefaultQOS, else "normal"
  std::string comment;    // --comment: free text for sacct and scontrol show job

  // Shape (0 = unset where it says so).
  int32_t min_nodes = 0;                        // -N MIN[-MAX]; 0 = 1
  int32_t max_nodes = 0;                        // high end of -N MIN-MAX; 0 = same as min_nodes
  int32_t ntasks = 0;                           // -n; 0 = one per node (or ntasks_per_node x nodes)
  int32_t ntasks_per_node = 0;                  // --ntasks-per-node; 0 = unset
  int32_t cpus_per_task = 0;                    // -c; 0 = 1
  int64_t mem_per_node_mib = 0;                 // --mem; 0 = unset
  int32_t gpus_per_node = 0;                    // --gpus-per-node=[TYPE:]N, --gres=gpu[:TYPE]:N
  std::string gpu_type;                         // "" = any type
  bool exclusive = false;                       // --exclusive
  std::optional<absl::Duration> time_limit;     // -t; unset = the partition's DefaultTime/MaxTime
  int32_t max_switches = 0;                     // --switches=K; 0 = no limit
  std::optional<absl::Duration> switches_wait;  // --switches=K@WAIT; unset = 300 s
  std::string required_nodes;                   // -w, a hostlist expression
  std::string excluded_nodes;                   // -x, a hostlist expression

  // What runs, where, and as what.
  // The batch script; empty for an allocation-only job (srun, salloc). Shared by every copy of
  // the record (an array's tasks hold one script, not one each).
  SharedText script;
  std::vector<std::string> argv;  // the script's arguments
  SharedEnvironment environment;  // --export (ordered: deterministic envp); shared likewise
  bool export_none = false;       // --export=NONE: only the SLURM_* variables
  std::string work_dir;           // -D; the submit directory by default
  std::string stdout_path;        // -o pattern (%j %x %u %N %A %a %t %%)
  std::string stderr_path;        // -e pattern
  std::string stdin_path;         // -i; "" = /dev/null
  bool open_append = false;       // --open-mode=append
  bool requeue = true;            // --requeue (Slurm's default) / --no-requeue
  bool hold = false;              // -H: submitted held (JobHeldUser)
  std::string submit_host;        // SLURM_SUBMIT_HOST
  std::string submit_dir;         // SLURM_SUBMIT_DIR
  int32_t nice = 0;               // --nice
  std::string array_spec;         // -a ("0-15%4"); "" = not an array
  // --signal=[B:]SIG@TIME: `warn_signal` this long before the time limit (0 = none); to the
  // batch shell only with warn_batch_only.
  int32_t warn_signal = 0;
  absl::Duration warn_time = absl::ZeroDuration();
  bool warn_batch_only = false;
  // --dependency: all items must be satisfied, or any one with dependency_any ('?').
  std::vector<Dependency> dependencies;
  bool dependency_any = false;
  // --kill-on-invalid-dep=yes|no: cancel the job once its dependency can never be satisfied;
  // unset = the cluster's DependencyParameters=kill_invalid_depend.
  std::optional<bool> kill_on_invalid_dep;
  // --begin: not started before this moment; InfinitePast = no such time.
  absl::Time begin_time = absl::InfinitePast();

  // Recorded for sacct and scontrol show job; Canopy does not act on them (yet), but for
  // cpus_per_gpu and overcommit, which shape the CPUs per node (admission.cc). sbatch has
  // already folded --gpus-per-task and --mem-per-gpu into gpus_per_node and mem_per_node_mib.
  std::string wckey;                                 // --wckey
  std::string mail_type;                             // --mail-type, as Slurm prints it
  std::string mail_user;                             // --mail-user
  std::string reservation;                           // --reservation
  absl::Time deadline = absl::InfinitePast();        // --deadline; InfinitePast = none
  absl::Duration delay_boot = absl::ZeroDuration();  // --delay-boot
  std::string container;                             // --container
  int32_t gpus_per_task = 0;                         // --gpus-per-task; 0 = unset
  int32_t cpus_per_gpu = 0;                          // --cpus-per-gpu; 0 = unset
  int64_t mem_per_gpu_mib = 0;                       // --mem-per-gpu; 0 = unset
  std::string gpu_bind;                              // --gpu-bind
  int32_t gpus_per_job = 0;                          // -G, --gpus; 0 = unset
  bool gpus_per_node_requested = false;              // --gpus-per-node or --gres=gpu:N given
  bool overcommit = false;                           // -O, --overcommit
  std::string exclusive_mode;                        // --exclusive=user|mcs|oversubscribe

  friend bool operator==(const JobSpec&, const JobSpec&) = default;
};

// A job's JobSpec held once however many copies of the job exist: the lifecycle's record, the
// snapshot published to readers, the row handed to the store, a LaunchJob's record. A spec is
// about a kilobyte and almost never changes after submission, while every change of state
// publishes a new copy of the job; sharing it keeps those copies to the fields that change.
//
// A value other holders share is never changed: Mutable() first copies it, so readers of
// earlier copies of the job (other threads included) keep the spec they had.
class SharedSpec {
 public:
  SharedSpec() = default;  // the default JobSpec, without an allocation
  // Implicit, so `job.spec = request.spec;` reads as it did when the field was a JobSpec.
  SharedSpec(JobSpec spec)  // NOLINT(google-explicit-constructor)
      : value_(Allocate(std::move(spec))), own_(true) {}
  // Copying shares the value: from then on neither holder changes it in place. (The source's
  // flag is atomic because readers on other threads copy published jobs; theirs is already
  // false, so they never write it.)
  SharedSpec(const SharedSpec& other) : value_(other.value_) { other.Disown(); }
  SharedSpec& operator=(const SharedSpec& other) {
    if (this != &other) {
      value_ = other.value_;
      own_.store(false, std::memory_order_relaxed);
      other.Disown();
    }
    return *this;
  }
  SharedSpec(SharedSpec&& other) noexcept
      : value_(std::move(other.value_)), own_(other.own_.exchange(false)) {}
  SharedSpec& operator=(SharedSpec&& other) noexcept {
    value_ = std::move(other.value_);
    own_.store(other.own_.exchange(false));
    return *this;
  }

  const JobSpec& get() const { return value_ != nullptr ? *value_ : Default(); }
  const JobSpec& operator*() const { return get(); }
  const JobSpec* operator->() const { return &get(); }
  operator const JobSpec&() const { return get(); }  // NOLINT(google-explicit-constructor)

  // The spec to change in place: this holder's own value, copied first if anyone shares it.
  JobSpec& Mutable() {
    if (!own_.load(std::memory_order_relaxed)) {
      value_ = Allocate(get());
      own_.store(true, std::memory_order_relaxed);
    }
    return *value_;
  }
  // True when both hold the same allocation (tests: a published copy shares the record's).
  bool SharesWith(const SharedSpec& other) const { return value_ == other.value_; }

  friend bool operator==(const SharedSpec& a, const SharedSpec& b) {
    return a.value_ == b.value_ || a.get() == b.get();
  }

 private:
  void Disown() const {
    if (own_.load(std::memory_order_relaxed)) {
      own_.store(false, std::memory_order_relaxed);
    }
  }
  // Not make_shared: a JobSpec is 1,024 bytes, and the count beside it would put every spec in
  // the allocator's next size class (1,280 bytes with jemalloc, canopyd's).
  static std::shared_ptr<JobSpec> Allocate(JobSpec spec) {
    return std::shared_ptr<JobSpec>(new JobSpec(std::move(spec)));
  }
  static const JobSpec& Default() {
    static const JobSpec* const empty = new JobSpec();
    return *empty;
  }
  std::shared_ptr<JobSpec> value_;
  // value_ is this holder's alone: Mutable() may change it in place.
  mutable std::atomic<bool> own_ = false;
};

// What one job asks of the nodes it runs on, resolved against the cluster: defaults applied,
// CPUs per node computed from tasks, hostlists turned into node ids. Placement's request is
// this plus the time its --switches wait started (placement/request.h).
struct ResourceRequest {
  // Exactly min_nodes, or a range [min_nodes, max_nodes]: the job gets as many nodes as one
  // placement can give, up to max_nodes. max_nodes 0 = same as min_nodes.
  int32_t min_nodes = 1;
  int32_t max_nodes = 0;

  // Per node.
  int32_t gpus_per_node = 0;
  std::string gpu_type;  // "" = any type
  int32_t cpus_per_node = 1;
  int64_t mem_per_node_mib = 0;

  // Only nodes with no allocation, and nobody else may join them.
  bool exclusive = false;

  // The partition the job runs in; "" = any partition (tests and benchmarks only).
  std::string partition;

  // -w / -x, ascending and unique. Required nodes count toward the node count.
  std::vector<NodeId> required_nodes;
  std::vector<NodeId> excluded_nodes;

  // --switches=K[@max_wait]: at most K leaf switches (base blocks on a block topology); 0 = no
  // limit. The job waits that long for such a placement, then takes what it can get.
  int32_t max_switches = 0;
  absl::Duration max_switch_wait = absl::Seconds(300);

  int32_t max_nodes_or_min() const { return max_nodes > 0 ? max_nodes : min_nodes; }

  friend bool operator==(const ResourceRequest&, const ResourceRequest&) = default;
};

}  // namespace canopy::core
