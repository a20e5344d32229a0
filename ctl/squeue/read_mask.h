// The read mask of squeue's ListJobs call (ListJobsRequest.read_mask): only the fields of
// canopy.v1.Job that squeue will read, so that canopyd converts and sends, and squeue parses, no
// more than its format prints (docs/performance.md, "Slim lists"). The default format reads 20
// of a record's 92 fields.
//
// What is read: the fields the rows, filters and default orders use (rows.h), plus those of
// each printed field and each -S key, from a table by -o letter. Whole records are asked for
// whenever something is not in that table (--json and --yaml, -s, a field only -O names), so
// a field added to fields.cc without an entry here is still printed right. read_mask_test.cc
// renders every letter of the table from trimmed and from whole records and compares.
// Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "canopy/v1/controller.pb.h"
#include "ctl/squeue/options.h"

namespace canopy::ctl::squeue {

// The paths, sorted and unique; empty = whole records.
std::vector<std::string> ReadMaskPaths(const SqueueOptions& options);

// Sets request.read_mask to ReadMaskPaths(options).
void AddReadMask(const SqueueOptions& options, canopy::v1::ListJobsRequest& request);

}  // namespace canopy::ctl::squeue
