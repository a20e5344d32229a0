// Job dependencies as sbatch --dependency writes them and scontrol show job prints them
// (Slurm 22.05's update_job_dependency and _depend_list2str, src/slurmctld/job_scheduler.c):
//
//   TYPE:ID[:ID...][,TYPE:ID...]   every item must be satisfied ('?' instead of ',': any one)
//   TYPE  after | afterany | afterok | afternotok | aftercorr (any case); "singleton" alone
//   ID    JOB        the job, or every task of JOB when JOB is an array ("JOB_*" says so)
//         JOB_TASK   one task of array JOB; JOB_[LIST] expands to one item per task
//         ...+MIN    (after) satisfied MIN minutes after the job started
//   A bare "ID[,ID...]" is Slurm's old form of afterany.
//
// What the items mean and when they are satisfied is the scheduler's business
// (docs/design/job_states.md); this file only reads and writes the text. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace canopy::slurm {

enum class DependencyType { kAfter, kAfterAny, kAfterOk, kAfterNotOk, kAfterCorr, kSingleton };

// What became of one item (scontrol show job prints it in brackets).
enum class DependencyState { kUnfulfilled, kFulfilled, kFailed };

struct DependencyItem {
  DependencyType type = DependencyType::kAfterAny;
  uint32_t job_id = 0;              // 0 for singleton
  std::optional<uint32_t> task_id;  // "JOB_TASK"
  bool whole_array = false;         // JOB is an array and the item means all its tasks
  int64_t minutes = 0;              // "+MIN"; 0 = none
  DependencyState state = DependencyState::kUnfulfilled;
  friend bool operator==(const DependencyItem&, const DependencyItem&) = default;
};

struct DependencyList {
  std::vector<DependencyItem> items;
  bool any = false;  // '?': one satisfied item is enough
  friend bool operator==(const DependencyList&, const DependencyList&) = default;
};

// "after", "afterany", ..., "singleton".
absl::string_view DependencyTypeName(DependencyType type);

// Parses a --dependency value. Items repeating an earlier one (same type, job and task) are
// dropped, as Slurm does. InvalidArgument naming the offending part and what was expected for
// an unknown type, a missing or zero job id, a bad task or minute count, ',' mixed with '?',
// or an empty value. afterburstbuffer and expand are refused (Canopy has neither).
absl::StatusOr<DependencyList> ParseDependency(absl::string_view text);

// scontrol show job's Dependency= value: the items not yet fulfilled (failed ones included),
// each as "TYPE:JOB[_TASK|_*][+MIN](STATE)" or "singleton(STATE)", joined by ',' or '?';
// "(null)" when none is left.
std::string FormatDependency(const DependencyList& list);

}  // namespace canopy::slurm
