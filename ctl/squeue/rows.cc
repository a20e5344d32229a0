#include "ctl/squeue/rows.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/slurm/hostlist.h"
#include "ctl/output/job_format.h"
#include "ctl/output/number_ranges.h"
#include "ctl/output/proto_time.h"
#include "ctl/squeue/job_values.h"

namespace canopy::ctl::squeue {
namespace {

using canopy::v1::Job;

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
// SLURM_BATCH_SCRIPT: the batch step's id, after every numbered step.
constexpr uint32_t kBatchStep = 0xfffffffb;

bool Contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

bool MatchesJobs(const SqueueOptions& o, const Job& job) {
  if (o.jobs.empty()) {
    return true;
  }
  for (const std::string& want : o.jobs) {
    if (want == absl::StrCat(job.job_id()) || want == output::JobIdString(job) ||
        (job.array_job_id() != 0 && want == absl::StrCat(job.array_job_id()))) {
      return true;
    }
  }
  return false;
}

bool MatchesUsers(const SqueueOptions& o, const Job& job) {
  if (o.users.empty() && o.user_ids.empty()) {
    return true;
  }
  return std::find(o.user_ids.begin(), o.user_ids.end(), job.user_id()) != o.user_ids.end() ||
         Contains(o.users, job.user_name()) || Contains(o.users, absl::StrCat(job.user_id()));
}

bool MatchesNodes(const SqueueOptions& o, const Job& job) {
  if (o.nodes.empty()) {
    return true;
  }
  for (const std::string& n : job.nodes()) {
    if (Contains(o.nodes, n)) {
      return true;
    }
  }
  return false;
}

bool MatchesStates(const SqueueOptions& o, const Job& job) {
  if (o.start) {
    return job.state() == canopy::v1::JOB_STATE_PENDING;
  }
  if (o.all_states) {
    return true;
  }
  if (!o.states.empty()) {
    return std::find(o.states.begin(), o.states.end(), job.state()) != o.states.end();
  }
  // By default squeue lists jobs still in the queue, -j or not: Slurm 22.05's `squeue -j ID`
  // of a job that ended (and is still in the controller) prints the header alone, exit 0, so
  // that `while [ -n "$(squeue -h -j ID)" ]` ends with the job. -t shows finished ones.
  return output::IsJobActive(job.state());
}

// "%4" of an array spec "0-15%4", or "".
std::string ArrayThrottle(const std::string& spec) {
  const size_t pct = spec.find('%');
  return pct == std::string::npos ? "" : spec.substr(pct);
}

template <typename T>
int Compare(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int64_t StartKey(const Job& job) {
  const auto& t =
      job.state() == canopy::v1::JOB_STATE_PENDING ? job.expected_start() : job.start_time();
  return output::IsSet(t) ? t.seconds() : kNever;
}

int64_t EndKey(const Job& job) {
  if (!HasStarted(job)) {
    return 0;
  }
  const int64_t end = ExpectedEndSeconds(job);
  return end == 0 ? kNever : end;
}

int64_t LimitKey(const Job& job) {
  return job.has_time_limit() ? job.time_limit().seconds() : kNever;
}

std::string Value(char letter, const JobRow& row, const FieldContext& c) {
  const JobField* field = JobFieldByLetter(letter);
  return field == nullptr ? "" : field->value(row, c);
}

// One sort key: -1, 0, 1; nullopt for a letter squeue cannot sort by.
std::optional<int> CompareBy(char key, const JobRow& a, const JobRow& b, const FieldContext& c) {
  const Job& x = *a.job;
  const Job& y = *b.job;
  switch (key) {
    case 'i': {
      const auto id = [](const JobRow& r) {
        const uint32_t task =
            r.pending_group ? std::numeric_limits<uint32_t>::max() : r.job->array_task_id();
        return std::make_pair(r.job->array_job_id() != 0 ? r.job->array_job_id() : r.base_id, task);
      };
      return Compare(id(a), id(b));
    }
    case 'c':
      return Compare(x.spec().cpus_per_task(), y.spec().cpus_per_task());
    case 'C':
      return Compare(output::JobCpuCount(x), output::JobCpuCount(y));
    case 'd':
    case 'O':
    case 'H':
    case 'I':
    case 'J':
    case 'z':
      return 0;  // the same for every Canopy job
    case 'D':
      return Compare(output::JobNodeCount(x), output::JobNodeCount(y));
    case 'e':
      return Compare(EndKey(x), EndKey(y));
    case 'G':
      return Compare(x.group_id(), y.group_id());
    case 'l':
      return Compare(LimitKey(x), LimitKey(y));
    case 'L': {
      const auto left = [&c](const Job& j) {
        return j.has_time_limit()
                   ? j.time_limit().seconds() - absl::ToInt64Seconds(output::JobRunTime(j, c.now))
                   : kNever;
      };
      return Compare(left(x), left(y));
    }
    case 'm':
      return Compare(x.spec().mem_per_node_mib(), y.spec().mem_per_node_mib());
    case 'M':
      return Compare(output::JobRunTime(x, c.now), output::JobRunTime(y, c.now));
    case 'N': {
      // Jobs without nodes come last.
      const std::string nx = NodeListOf(x);
      const std::string ny = NodeListOf(y);
      return Compare(std::make_pair(nx.empty(), nx), std::make_pair(ny.empty(), ny));
    }
    case 'p':
    case 'Q':
      return Compare(x.priority(), y.priority());
    case 'S':
      return Compare(StartKey(x), StartKey(y));
    case 'U':
      return Compare(x.user_id(), y.user_id());
    case 'V':
      return Compare(x.submit_time().seconds(), y.submit_time().seconds());
    case 'B': {
      const std::string bx = x.nodes().empty() ? "" : x.nodes(0);
      const std::string by = y.nodes().empty() ? "" : y.nodes(0);
      return Compare(bx, by);
    }
    case 'f':
    case 'g':
    case 'h':
    case 'j':
    case 'n':
    case 'u':
    case 'v':
    case 'P':
    case 't':
    case 'T':
      return Compare(Value(key, a, c), Value(key, b, c));
    default:
      return std::nullopt;
  }
}

// The -S letters squeue 22.05 accepts (besides 'b', which it reports and skips).
bool SortableKey(char letter) {
  static constexpr absl::string_view kKeys = "cdefghijlmnptuvzBCDGHIJLMNOPQSTUV";
  return kKeys.find(letter) != absl::string_view::npos;
}

// squeue's default order; see the header for the tie-break.
bool DefaultBefore(const JobRow& a, const JobRow& b) {
  const auto key = [](const Job& j) {
    const uint32_t base = j.array_job_id() != 0 ? j.array_job_id() : j.job_id();
    return std::make_tuple(PartitionOf(j), output::JobStateCompact(j.state()),
                           -static_cast<int64_t>(j.priority()), -j.submit_time().seconds(), base,
                           j.array_task_id());
  };
  return key(*a.job) < key(*b.job);
}

}  // namespace

// An operator may have changed one task's name, account, partition or QOS, -j names tasks, and
// -w matches none of a pending task: those filters fold nothing. Every task has the array's user,
// and a folded task is pending.
bool FoldsPendingArrays(const SqueueOptions& o) {
  return !o.expand_arrays && !o.start && !o.steps && !o.json && o.jobs.empty() &&
         o.accounts.empty() && o.names.empty() && o.partitions.empty() && o.qos.empty() &&
         o.nodes.empty();
}

canopy::v1::ListJobsRequest ListRequest(const SqueueOptions& o) {
  canopy::v1::ListJobsRequest request;
  request.set_fold_pending_array_tasks(FoldsPendingArrays(o));
  // With -j every state: a job named that is not pending (running, or ended) is still a known
  // id, which --start leaves out without an error, as Slurm's squeue does.
  if (o.start && o.jobs.empty()) {
    request.add_states(canopy::v1::JOB_STATE_PENDING);
    return request;
  }
  if (o.all_states || !o.jobs.empty()) {
    return request;
  }
  if (!o.states.empty()) {
    if (std::all_of(o.states.begin(), o.states.end(),
                    [](canopy::v1::JobState s) { return output::IsJobActive(s); })) {
      for (canopy::v1::JobState s : o.states) {
        request.add_states(s);
      }
    }
    return request;
  }
  for (canopy::v1::JobState s : {canopy::v1::JOB_STATE_PENDING, canopy::v1::JOB_STATE_CONFIGURING,
                                 canopy::v1::JOB_STATE_RUNNING, canopy::v1::JOB_STATE_COMPLETING}) {
    request.add_states(s);
  }
  return request;
}

bool JobSelected(const SqueueOptions& o, const Job& job) {
  return MatchesJobs(o, job) && MatchesUsers(o, job) &&
         (o.accounts.empty() || Contains(o.accounts, job.spec().account())) &&
         (o.names.empty() || Contains(o.names, job.spec().name())) &&
         (o.partitions.empty() || Contains(o.partitions, PartitionOf(job))) &&
         (o.qos.empty() || Contains(o.qos, output::JobQosName(job))) && MatchesNodes(o, job);
}

std::vector<JobRow> SelectJobRows(const SqueueOptions& options,
                                  const canopy::v1::ListJobsResponse& jobs) {
  std::vector<JobRow> rows;
  // Pending tasks of one array, collapsed into their first task's row.
  std::map<uint32_t, std::vector<uint32_t>> pending_tasks;
  std::map<uint32_t, size_t> pending_row;
  // The tasks canopyd folded into one record (ListJobsRequest.fold_pending_array_tasks).
  std::map<uint32_t, const google::protobuf::RepeatedField<uint32_t>*> folded;
  for (const canopy::v1::PendingArrayTasks& array : jobs.pending_arrays()) {
    folded[array.array_job_id()] = &array.task_ids();
  }
  for (const Job& job : jobs.jobs()) {
    if (!JobSelected(options, job) || !MatchesStates(options, job)) {
      continue;
    }
    if (!options.expand_arrays && job.array_job_id() != 0 &&
        job.state() == canopy::v1::JOB_STATE_PENDING) {
      std::vector<uint32_t>& tasks = pending_tasks[job.array_job_id()];
      if (auto it = folded.find(job.array_job_id()); it != folded.end()) {
        tasks.insert(tasks.end(), it->second->begin(), it->second->end());
      } else {
        tasks.push_back(job.array_task_id());
      }
      if (!pending_row.contains(job.array_job_id())) {
        pending_row[job.array_job_id()] = rows.size();
        rows.push_back(JobRow{&job, "", job.array_job_id(), "", true});
      }
      continue;
    }
    rows.push_back(JobRow{&job, output::JobIdString(job), job.job_id(), "", false});
  }
  for (const auto& [array_id, tasks] : pending_tasks) {
    JobRow& row = rows[pending_row[array_id]];
    const std::string throttle = ArrayThrottle(row.job->spec().array_spec());
    row.task_string = absl::StrCat(
        output::NumberRanges(std::vector<int64_t>(tasks.begin(), tasks.end())), throttle);
    if (tasks.size() == 1 && throttle.empty()) {
      // One task left is a plain task row (squeue shows "5_3", not "5_[3]").
      row.id = absl::StrCat(array_id, "_", tasks[0]);
      row.pending_group = false;
    } else {
      row.id = absl::StrCat(array_id, "_[", row.task_string, "]");
    }
  }
  return rows;
}

std::vector<StepRow> SelectStepRows(const SqueueOptions& options,
                                    const canopy::v1::ListJobsResponse& jobs) {
  std::vector<StepRow> rows;
  const auto wanted = [&options](const Job& job, uint32_t step_id) {
    if (options.step_list.empty()) {
      return true;
    }
    for (const StepSelector& s : options.step_list) {
      const bool job_matches = s.array_task.has_value() ? job.array_job_id() == s.job_id &&
                                                              job.array_task_id() == *s.array_task
                                                        : job.job_id() == s.job_id;
      if (job_matches && s.step_id == step_id) {
        return true;
      }
    }
    return false;
  };
  for (const Job& job : jobs.jobs()) {
    if (!JobSelected(options, job) || !HasStarted(job) || !output::IsJobActive(job.state())) {
      continue;
    }
    const std::string job_id = output::JobIdString(job);
    for (const canopy::v1::JobStep& step : job.steps()) {
      if (!wanted(job, step.step_id())) {
        continue;
      }
      StepRow row;
      row.job = &job;
      row.id = absl::StrCat(job_id, ".", step.step_id());
      row.name = step.name();
      row.step_key = step.step_id();
      row.nodes = slurm::CompressHostlist(
          std::vector<std::string>(step.nodes().begin(), step.nodes().end()));
      row.start_seconds = step.start_time().seconds();
      row.ntasks = step.ntasks();
      row.cpus = step.cpus();
      row.state = step.state() == canopy::v1::JOB_STATE_UNSPECIFIED ? canopy::v1::JOB_STATE_RUNNING
                                                                    : step.state();
      rows.push_back(std::move(row));
    }
    // The batch script runs as step "batch" on the first node; -s LIST never names it (squeue
    // reads "5.batch" as step 0).
    if (IsBatchJob(job) && !job.nodes().empty() && options.step_list.empty()) {
      StepRow row;
      row.job = &job;
      row.id = absl::StrCat(job_id, ".batch");
      row.name = "batch";
      row.step_key = kBatchStep;
      row.nodes = job.nodes(0);
      row.start_seconds = job.start_time().seconds();
      row.ntasks = 1;
      rows.push_back(std::move(row));
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const StepRow& a, const StepRow& b) {
    const auto key = [](const StepRow& r) {
      const Job& j = *r.job;
      return std::make_tuple(PartitionOf(j), j.array_job_id() != 0 ? j.array_job_id() : j.job_id(),
                             j.array_task_id(), r.step_key);
    };
    return key(a) < key(b);
  });
  return rows;
}

SortResult SortJobRows(const std::string& sort, bool start, const FieldContext& context,
                       std::vector<JobRow>& rows) {
  SortResult result;
  if (sort.empty()) {
    if (start) {
      // Earliest expected start first (jobs without one, "N/A", count as time 0), then job id.
      std::stable_sort(rows.begin(), rows.end(), [](const JobRow& a, const JobRow& b) {
        return std::make_pair(a.job->expected_start().seconds(), a.base_id) <
               std::make_pair(b.job->expected_start().seconds(), b.base_id);
      });
    } else {
      std::stable_sort(rows.begin(), rows.end(), DefaultBefore);
    }
    return result;
  }
  // The keys, read as squeue does: from the last to the first (so a message about a later key
  // comes before the error of an earlier one).
  struct Key {
    char letter;
    bool descending;
  };
  std::vector<Key> keys;
  for (size_t i = 0; i < sort.size(); ++i) {
    bool descending = false;
    if (sort[i] == ',') {
      continue;
    }
    if (sort[i] == '+' || sort[i] == '-') {
      descending = sort[i] == '-';
      if (++i >= sort.size()) {
        break;
      }
    }
    keys.push_back(Key{sort[i], descending});
  }
  std::vector<Key> usable;
  for (auto it = keys.rbegin(); it != keys.rend(); ++it) {
    if (it->letter == 'b') {
      // A field squeue lists among its sort keys but has no comparison for.
      result.notes.push_back("squeue: Invalid sort specification: b");
      continue;
    }
    if (!SortableKey(it->letter)) {
      result.error =
          absl::StrCat("squeue: error: Invalid sort specification: ", std::string(1, it->letter));
      return result;
    }
    usable.insert(usable.begin(), *it);
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const JobRow& a, const JobRow& b) {
    for (const Key& k : usable) {
      const int c = *CompareBy(k.letter, a, b, context);
      if (c != 0) {
        return k.descending ? c > 0 : c < 0;
      }
    }
    return false;
  });
  return result;
}

}  // namespace canopy::ctl::squeue
