// Which jobs and steps squeue shows, and in what order: the filters of the options, pending
// array tasks folded into one row ("5_[2-9%2]") unless -r, and the sort (-S, SQUEUE_SORT, or
// squeue's default). Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "canopy/v1/controller.pb.h"
#include "ctl/squeue/fields.h"
#include "ctl/squeue/options.h"

namespace canopy::ctl::squeue {

// The job passes the options' filters (for steps too: -j, -u, -A, -n, -p, -q, -w).
bool JobSelected(const SqueueOptions& options, const canopy::v1::Job& job);

// The ListJobs request for the options: the states canopyd can filter by when the options take
// only jobs still in the queue (the default, --start, a -t of active states), so that finished
// jobs are not sent to be dropped here. Everything else is filtered here (JobSelected): "-j 5"
// matches every task of array 5, and -t CD must not show jobs older than MinJobAge.
canopy::v1::ListJobsRequest ListRequest(const SqueueOptions& options);

// Whether the request asks canopyd to fold each array's pending tasks into one record
// (ListJobsRequest.fold_pending_array_tasks): when squeue would fold them into one row itself
// and no filter it applies could tell the tasks apart.
bool FoldsPendingArrays(const SqueueOptions& options);

// Selected jobs as rows, pending array tasks grouped unless -r, in ListJobs' order.
std::vector<JobRow> SelectJobRows(const SqueueOptions& options,
                                  const canopy::v1::ListJobsResponse& jobs);

// The steps of the selected running jobs (and their batch steps), filtered by -s LIST, in
// squeue's step order: partition, then step id.
std::vector<StepRow> SelectStepRows(const SqueueOptions& options,
                                    const canopy::v1::ListJobsResponse& jobs);

// What sorting printed: a message squeue prints and goes on with ("squeue: Invalid sort
// specification: b", a key it knows but cannot sort by), and the fatal error of an unknown key
// ("squeue: error: Invalid sort specification: X"), each a line without its newline.
struct SortResult {
  std::vector<std::string> notes;
  std::string error;  // non-empty: squeue stops after the header and exits 1
};

// Sorts `rows` by `sort` (comma-separated keys, each a -o letter with an optional '+' or '-'),
// or squeue's default order when it is empty: partition, state, priority (highest first); ties
// as slurmctld's list left them, which showed newer submissions first, then job id. --start
// orders by expected start instead.
SortResult SortJobRows(const std::string& sort, bool start, const FieldContext& context,
                       std::vector<JobRow>& rows);

}  // namespace canopy::ctl::squeue
