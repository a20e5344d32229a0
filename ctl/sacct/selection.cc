#include "ctl/sacct/selection.h"

#include <algorithm>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "ctl/output/proto_time.h"
#include "ctl/sacct/values.h"

namespace canopy::ctl::sacct {
namespace {

using canopy::v1::AccountingRecord;
using canopy::v1::Job;

// "-j 1214" is the job 1214 and every task of array 1214; "-j 1214_2" one task.
bool Matches(const JobSelector& selector, const Job& job) {
  if (selector.array_task.has_value()) {
    return job.array_job_id() == selector.job_id && job.array_task_id() == *selector.array_task;
  }
  return job.job_id() == selector.job_id ||
         (job.array_job_id() != 0 && job.array_job_id() == selector.job_id);
}

// A task of an array still waiting for its first start: part of the array's pending remainder.
bool PendingRemainder(const SelectedRecord& r) {
  const AccountingRecord& rec = *r.record;
  const Job& job = rec.job();
  return r.job_line && r.steps.empty() && !rec.earlier_attempt() && job.array_job_id() != 0 &&
         job.state() == canopy::v1::JOB_STATE_PENDING && !output::IsSet(job.start_time()) &&
         job.restart_count() == 0;
}

}  // namespace

std::vector<SelectedRecord> SelectRecords(const SacctOptions& options,
                                          const canopy::v1::ListAccountingResponse& response) {
  std::vector<SelectedRecord> selected;
  for (const AccountingRecord& rec : response.records()) {
    // canopyd sends earlier attempts only when asked; an older or looser server is not trusted.
    if (rec.earlier_attempt() && !options.duplicates) {
      continue;
    }
    SelectedRecord r{&rec, true, {}};
    bool all_steps = true;
    std::set<std::string> steps;
    if (!options.jobs.empty()) {
      bool matched = false;
      r.job_line = false;
      for (const JobSelector& selector : options.jobs) {
        if (!Matches(selector, rec.job())) {
          continue;
        }
        matched = true;
        if (selector.step.has_value()) {
          steps.insert(*selector.step);
        } else {
          r.job_line = true;
        }
      }
      if (!matched) {
        continue;
      }
      all_steps = r.job_line;
    }
    if (!options.allocations && !options.completion) {
      for (const canopy::v1::AccountingStep& step : rec.steps()) {
        if (all_steps || steps.count(step.step_id()) > 0) {
          r.steps.push_back(&step);
        }
      }
    }
    // "-X -j 1211.0": neither the job line nor the step, as in sacct.
    if (r.job_line || !r.steps.empty()) {
      selected.push_back(std::move(r));
    }
  }
  return selected;
}

std::vector<Line> BuildLines(const SacctOptions& options,
                             const std::vector<SelectedRecord>& records) {
  std::vector<Line> lines;
  for (size_t i = 0; i < records.size();) {
    const SelectedRecord& r = records[i];
    if (!options.completion && PendingRemainder(r)) {
      const uint32_t array = r.record->job().array_job_id();
      size_t end = i + 1;
      while (end < records.size() && PendingRemainder(records[end]) &&
             records[end].record->job().array_job_id() == array) {
        ++end;
      }
      if (end - i >= 2) {
        std::vector<uint32_t> tasks;
        for (size_t k = i; k < end; ++k) {
          tasks.push_back(records[k].record->job().array_task_id());
        }
        lines.push_back({r.record, nullptr, TaskRanges(tasks, ArrayThrottle(r.record->job()))});
        i = end;
        continue;
      }
    }
    if (r.job_line) {
      lines.push_back({r.record, nullptr, ""});
    }
    for (const canopy::v1::AccountingStep* step : r.steps) {
      lines.push_back({r.record, step, ""});
    }
    ++i;
  }
  return lines;
}

std::string TaskRanges(std::vector<uint32_t> tasks, int throttle) {
  std::sort(tasks.begin(), tasks.end());
  tasks.erase(std::unique(tasks.begin(), tasks.end()), tasks.end());
  std::string text;
  for (size_t i = 0; i < tasks.size();) {
    size_t j = i;
    while (j + 1 < tasks.size() && tasks[j + 1] == tasks[j] + 1) {
      ++j;
    }
    absl::StrAppend(&text, text.empty() ? "" : ",", tasks[i]);
    if (j > i) {
      absl::StrAppend(&text, "-", tasks[j]);
    }
    i = j + 1;
  }
  if (throttle > 0) {
    absl::StrAppend(&text, "%", throttle);
  }
  return text;
}

}  // namespace canopy::ctl::sacct
