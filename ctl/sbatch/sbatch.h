// `sbatch`: submits a batch script (a file, stdin, or --wrap) with Slurm 22.05's options and
// messages ("Submitted batch job N", --parsable, "sbatch: error: ..."). Parsing is
// common/slurm/sbatch_options.h, the spec is job_spec.h; this file does the I/O and the RPC.
#pragma once

#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "canopy/v1/controller.pb.h"

namespace canopy::ctl::sbatch {

// --test-only's line (printed after "sbatch: "), as Slurm 22.05 words it:
//   Job 1222 to start at 2026-12-03T04:11:01 using 4 processors on nodes gpu[013-016] in
//   partition gpu
std::string TestOnlyLine(const canopy::v1::SubmitJobResponse& response, absl::TimeZone tz);

// `args` excludes the program name; `in` is read when no script file is named.
int RunSbatch(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
              std::ostream& err);

}  // namespace canopy::ctl::sbatch
