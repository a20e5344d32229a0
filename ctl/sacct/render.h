// sacct's output, as Slurm 22.05 prints it (tests/data/slurm-reference/accounting-outputs-
// 22.05.txt). Pure: RenderSacct turns a ListAccountingResponse into what sacct writes to stdout
// and stderr and its exit code, so tests compare it byte for byte with the reference.
// Thread-safe.
//
// Text output goes through Slurm's print_fields (ctl/output/print_fields.h): a table with a
// header and a dashed line, each column followed by one space; with -p / -P the fields joined by
// the delimiter (--delimiter, default '|'), -p with one after the last field too. With --json
// the records as Slurm's data_parser v0.0.38 writes them (json.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "absl/time/time.h"
#include "canopy/v1/controller.pb.h"
#include "ctl/sacct/options.h"

namespace canopy::ctl::sacct {

struct SacctOutput {
  std::string out;
  std::string err;
  int exit_code = 0;
};

// What the output depends on besides the answer: the time zone times are shown in and the
// names of uids and gids (the numbers when unset).
struct RenderEnvironment {
  absl::TimeZone tz = absl::UTCTimeZone();
  std::function<std::string(uint32_t)> user_name;
  std::function<std::string(uint32_t)> group_name;
};

SacctOutput RenderSacct(const SacctOptions& options,
                        const canopy::v1::ListAccountingResponse& response,
                        const RenderEnvironment& env);

// The request for `options`: the filters canopyd applies (jobs, users, accounts, partitions,
// states, names, QOS, nodes, the window) and whether steps and earlier attempts are wanted.
canopy::v1::ListAccountingRequest AccountingRequest(const SacctOptions& options);

}  // namespace canopy::ctl::sacct
