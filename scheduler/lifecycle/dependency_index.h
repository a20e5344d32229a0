// DependencyIndex: what the lifecycle keeps so that a change of one job re-evaluates only the
// jobs whose dependencies name it (dependencies.h does the evaluating): the waiting jobs by the
// job or array task they wait on, per-array progress counters (so "all tasks of array 5 ended
// COMPLETED" is O(1)), and per (user, job name) the running and pending jobs that singleton
// dependencies look at. Owned by LifecycleState; not thread-safe; no I/O.
#pragma once

#include <cstdint>
#include <deque>
#include <string>

#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/time/time.h"
#include "scheduler/core/ids.h"

namespace canopy::lifecycle {

// What a dependency asks of a job it names.
enum class DependeeCategory { kPending, kStarted, kCompletedOk, kEndedNotOk };

// The tasks of an array some waiting job names (as a whole, one task, or aftercorr). Tracked
// from the first such dependency on (built by one pass over the array's tasks) until no waiting
// job names the array any more.
struct ArrayProgress {
  absl::flat_hash_map<uint32_t, core::JobId> by_task;  // task id -> its job
  absl::flat_hash_map<core::JobId, DependeeCategory> category;
  int32_t pending = 0;
  int32_t ok = 0;
  int32_t not_ok = 0;
  absl::Time last_left_pending = absl::InfinitePast();  // latest start (or cancel) of a task
  int32_t watchers = 0;                                 // items of waiting jobs that name the array
  int32_t total() const { return static_cast<int32_t>(category.size()); }
  int32_t finished() const { return ok + not_ok; }
};

// The jobs of one user and job name that singleton dependencies look at. Tracked from the first
// singleton dependency of that user and name on (built by one pass over all jobs) for as long
// as the controller runs.
struct NameGroup {
  absl::btree_set<core::JobId> pending;  // PENDING (or REQUEUED) jobs of that name
  absl::btree_set<core::JobId> running;  // CONFIGURING or RUNNING jobs of that name
  absl::btree_set<core::JobId> waiting;  // pending jobs whose singleton item still waits
};

struct DependencyIndex {
  // Key of what a dependency names: (job or array id) << 32 | slot, slot 0 for the job or the
  // whole array and task + 1 for one task of an array.
  static uint64_t Key(uint32_t job, uint32_t slot) {
    return (static_cast<uint64_t>(job) << 32) | slot;
  }

  // Pending jobs with a dependency still waiting, by what they wait on.
  absl::flat_hash_map<uint64_t, absl::btree_set<core::JobId>> dependents;
  absl::flat_hash_set<core::JobId> tracked;  // the jobs listed in `dependents` or `waiting`
  // When an after:ID+MINUTES item of a tracked job comes due.
  absl::flat_hash_map<core::JobId, absl::Time> wake;
  absl::flat_hash_map<uint32_t, ArrayProgress> arrays;  // by array job id
  // By uid, then job name (heterogeneous lookup: no string copy per job change).
  absl::flat_hash_map<uint32_t, absl::flat_hash_map<std::string, NameGroup>> names;

  // Jobs whose change is yet to be passed on to the jobs waiting on them. Changes made while
  // passing one on are queued here, so a chain of dependents is walked iteratively.
  std::deque<core::JobId> changed;
  bool draining = false;

  bool empty() const { return tracked.empty() && names.empty(); }
};

}  // namespace canopy::lifecycle
