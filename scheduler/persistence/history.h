// The accounting history as sacct reads it: which jobs (HistoryQuery) and what is known of each
// (HistoryJob: the job's last record, its earlier runs, its steps). Plain value types in the
// core's terms; node names instead of ids, since history outlives configuration changes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "scheduler/core/job.h"
#include "scheduler/core/job_history.h"

namespace canopy::persistence {

// sacct's selection. Empty lists select everything; the conditions are ANDed.
struct HistoryQuery {
  std::vector<uint32_t> job_ids;                           // a job, or an array's id (every task)
  std::vector<std::pair<uint32_t, uint32_t>> array_tasks;  // (array job id, task id)
  std::vector<uint32_t> user_ids;
  std::vector<std::string> accounts;
  std::vector<std::string> partitions;
  std::vector<std::string> names;
  std::vector<std::string> qos;
  std::vector<core::JobState> states;  // the state a run ended in (or is in)
  std::vector<std::string> nodes;      // ran on any of them
  // Jobs eligible, running or ended within [window_start, window_end].
  absl::Time window_start = absl::InfinitePast();
  absl::Time window_end = absl::InfiniteFuture();
  bool include_steps = true;
  bool duplicates = false;  // earlier runs of requeued jobs too
};

// A node of a run: name and share.
struct HistoryNode {
  std::string name;
  int32_t gpus = 0;
  int32_t cpus = 0;
  int64_t mem_mib = 0;
};

struct HistoryStep {
  core::StepRecord record;  // `nodes` unused: see node_names
  std::vector<std::string> node_names;
};

struct HistoryAttempt {
  core::JobAttempt attempt;  // `allocation` unused: see nodes
  std::vector<HistoryNode> nodes;
};

struct HistoryJob {
  core::Job job;  // the last run; no script, environment or allocation (see nodes)
  std::vector<HistoryNode> nodes;
  std::vector<HistoryAttempt> earlier;  // with HistoryQuery::duplicates, by attempt
  std::vector<HistoryStep> steps;       // of every run, by (attempt, step id)
  // False when only earlier runs matched the query's states: the last run is not listed.
  bool last_selected = true;
};

}  // namespace canopy::persistence
