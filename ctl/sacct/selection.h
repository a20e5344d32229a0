// Which records and steps of canopyd's answer sacct shows, and in which lines. canopyd filters
// by the request (job ids, users, states, window, ...); what is left to the client is what
// Slurm's sacct decides itself: "-j ID.STEP" shows that step without its job line, -X drops the
// steps, earlier attempts of requeued jobs only with -D, and an array's pending tasks that never
// ran are one line "A_[2-4%2]". Pure; thread-safe.
#pragma once

#include <vector>

#include "canopy/v1/controller.pb.h"
#include "ctl/sacct/fields.h"
#include "ctl/sacct/options.h"

namespace canopy::ctl::sacct {

// A record sacct shows: its job line (unless only steps of it were asked for) and its steps.
struct SelectedRecord {
  const canopy::v1::AccountingRecord* record = nullptr;
  bool job_line = true;
  std::vector<const canopy::v1::AccountingStep*> steps;  // empty with -X and -c
};

// The records of `response` sacct shows, in the answer's order. Pointers into `response`.
std::vector<SelectedRecord> SelectRecords(const SacctOptions& options,
                                          const canopy::v1::ListAccountingResponse& response);

// The output lines: each record's job line then its step lines; consecutive pending tasks of
// one array that never ran (two or more) become one job line (not with -c, whose completion
// log has one line per job).
std::vector<Line> BuildLines(const SacctOptions& options,
                             const std::vector<SelectedRecord>& records);

// "2-4,7" (with the throttle: "2-4,7%2") from task ids in any order.
std::string TaskRanges(std::vector<uint32_t> tasks, int throttle);

}  // namespace canopy::ctl::sacct
