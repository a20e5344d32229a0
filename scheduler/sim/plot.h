// Plots for canopy-sim --plot DIR: data files, a gnuplot script, and the PNGs gnuplot makes.
//
// Charts: utilization over time per policy (util.png), the wait-time distribution as a CDF
// (waits.png), and leaf switches per multi-node job (leaves.png). gnuplot (Debian package
// gnuplot-nox) draws them; when it is missing the data and script are still written and the
// result is FailedPrecondition saying so. I/O lives here, in the simulator shell, never in the
// core. Not thread-safe (writes files).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "scheduler/sim/metrics.h"

namespace canopy::sim {

struct PlotRun {
  std::string label;  // "canopy", "first-fit", ...
  SimMetrics metrics;
  SimSeries series;
  int64_t total_gpus = 0;
};

// Writes DIR/<label>_{util,waits,leaves}.dat and DIR/plots.gp, then runs gnuplot in DIR.
// NotFound / PermissionDenied if DIR cannot be written; FailedPrecondition if gnuplot is not
// installed or fails.
absl::Status WritePlots(const std::string& dir, const std::vector<PlotRun>& runs);

}  // namespace canopy::sim
