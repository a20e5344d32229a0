// squeue's fields: one table for jobs and one for steps, each entry with its -o letter, its -O
// names, its header and how its value is printed, as Slurm 22.05's squeue prints them
// (values Canopy has no data for are what squeue prints when the record leaves them unset:
// "(null)", "N/A", "0", "*"). Pure; thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "canopy/v1/types.pb.h"

namespace canopy::ctl::squeue {

// One output row of jobs: a job, or the pending tasks of one array ("5_[2-9%2]").
struct JobRow {
  const canopy::v1::Job* job = nullptr;
  std::string id;           // %i: "8", "5_1", "5_[2-9%2]"
  uint32_t base_id = 0;     // %A: the job id (the array's id for a row of pending tasks)
  std::string task_string;  // %K of a row of pending tasks: "2-9%2"; empty otherwise
  bool pending_group = false;
};

// One output row of steps (squeue -s): an srun step, or the batch step Slurm lists for every
// running batch job ("ID.batch" on the first node).
struct StepRow {
  const canopy::v1::Job* job = nullptr;
  std::string id;         // "8.0", "5_1.batch"
  std::string name;       // the program, or "batch"
  uint32_t step_key = 0;  // step id; the batch step sorts after numbered ones, as in Slurm
  std::string nodes;      // hostlist
  int64_t start_seconds = 0;
  int ntasks = 0;
  int cpus = 0;
  canopy::v1::JobState state = canopy::v1::JOB_STATE_RUNNING;
};

// What values depend on besides the row.
struct FieldContext {
  absl::Time now = absl::UnixEpoch();  // the controller's clock (TIME, TIME_LEFT)
  absl::TimeZone tz = absl::UTCTimeZone();
  bool noconvert = false;  // --noconvert: MIN_MEMORY stays in MiB
  // The name of a group id; the number when unset or unknown.
  std::function<std::string(uint32_t)> group_name;
};

using JobValue = std::string (*)(const JobRow& row, const FieldContext& context);
using StepValue = std::string (*)(const StepRow& row, const FieldContext& context);

struct JobField {
  char letter;              // its -o letter; '\0' for fields only -O names
  absl::string_view names;  // its -O names, comma-separated, lower case
  absl::string_view header;
  JobValue value;
};

struct StepField {
  char letter;
  absl::string_view names;
  absl::string_view header;
  StepValue value;
};

absl::Span<const JobField> JobFields();
absl::Span<const StepField> StepFields();

// The field of a -o letter or of a -O name (any case); nullptr if none.
const JobField* JobFieldByLetter(char letter);
const JobField* JobFieldByName(absl::string_view name);
const StepField* StepFieldByLetter(char letter);
const StepField* StepFieldByName(absl::string_view name);

}  // namespace canopy::ctl::squeue
