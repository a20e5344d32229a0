#include "ctl/squeue/render.h"

#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ctl/output/proto_time.h"
#include "ctl/squeue/format.h"
#include "ctl/squeue/json.h"
#include "ctl/squeue/rows.h"

namespace canopy::ctl::squeue {
namespace {

// 22.05's defaults (its -O spellings "jobarrayid:.18 ,partition:.9 ,..." print the same).
constexpr char kDefaultFormat[] = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R";
constexpr char kLongFormat[] = "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R";
constexpr char kStartFormat[] = "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R";
constexpr char kStepFormat[] = "%.15i %.8j %.9P %.8u %.9M %N";

// A header line (row == nullptr) or a row. The field's header or value, fitted, then its
// suffix; literal text as it is.
template <typename RowT>
std::string Line(const std::vector<Column>& columns, const RowT* row, const FieldContext& c) {
  std::string line;
  for (const Column& col : columns) {
    if (col.job_field == nullptr && col.step_field == nullptr) {
      line += col.text;
      continue;
    }
    std::string value;
    if constexpr (std::is_same_v<RowT, JobRow>) {
      value = row == nullptr ? std::string(col.job_field->header) : col.job_field->value(*row, c);
    } else {
      value = row == nullptr ? std::string(col.step_field->header) : col.step_field->value(*row, c);
    }
    absl::StrAppend(&line, FitToColumn(value, col), col.suffix);
  }
  return line + "\n";
}

}  // namespace

ParsedFormat ChooseFormat(const SqueueOptions& o) {
  const FormatKind kind = o.steps ? FormatKind::kSteps : FormatKind::kJobs;
  if (!o.format.empty()) {
    return ParseFormat(o.format, kind);
  }
  if (!o.format_long.empty()) {
    return ParseLongFormat(o.format_long, kind);
  }
  if (o.steps) {
    return ParseFormat(kStepFormat, kind);
  }
  return ParseFormat(o.start ? kStartFormat : o.long_format ? kLongFormat : kDefaultFormat, kind);
}

SqueueOutput RenderSqueueOutput(const SqueueOptions& options,
                                const canopy::v1::ListJobsResponse& jobs,
                                const RenderEnvironment& env) {
  FieldContext context;
  context.now = output::ToTime(jobs.server_time());
  context.tz = env.tz;
  context.noconvert = options.noconvert;
  context.group_name = env.group_name;

  SqueueOutput result;
  if (options.json) {
    result.out = RenderJson(jobs, context);
    return result;
  }
  const ParsedFormat format = ChooseFormat(options);
  for (const std::string& e : format.errors) {
    absl::StrAppend(&result.err, "squeue: error: ", e, "\n");
  }
  if ((options.long_format || options.iterate_seconds > 0) && !options.no_header) {
    result.out += absl::FormatTime("%a %b %d %H:%M:%S %Y\n", context.now, env.tz);
  }
  if (options.steps) {
    const std::vector<StepRow> rows = SelectStepRows(options, jobs);
    if (!options.no_header) {
      result.out += Line<StepRow>(format.columns, nullptr, context);
    }
    for (const StepRow& row : rows) {
      result.out += Line(format.columns, &row, context);
    }
    return result;
  }
  std::vector<JobRow> rows = SelectJobRows(options, jobs);
  if (!options.no_header) {
    result.out += Line<JobRow>(format.columns, nullptr, context);
  }
  // squeue sorts after printing the header, so a bad key still leaves the header out.
  const SortResult sorted = SortJobRows(options.sort, options.start, context, rows);
  for (const std::string& note : sorted.notes) {
    absl::StrAppend(&result.err, note, "\n");
  }
  if (!sorted.error.empty()) {
    absl::StrAppend(&result.err, sorted.error, "\n");
    result.exit_code = 1;
    return result;
  }
  for (const JobRow& row : rows) {
    result.out += Line(format.columns, &row, context);
  }
  return result;
}

std::string RenderSqueue(const SqueueOptions& options, const canopy::v1::ListJobsResponse& jobs,
                         absl::TimeZone tz) {
  RenderEnvironment env;
  env.tz = tz;
  return RenderSqueueOutput(options, jobs, env).out;
}

bool NoRequestedJobFound(const SqueueOptions& options, const canopy::v1::ListJobsResponse& jobs) {
  if (options.jobs.empty() || options.json) {
    return false;
  }
  SqueueOptions only_jobs;
  only_jobs.jobs = options.jobs;
  for (const canopy::v1::Job& j : jobs.jobs()) {
    if (JobSelected(only_jobs, j)) {
      return false;
    }
  }
  return true;
}

}  // namespace canopy::ctl::squeue
