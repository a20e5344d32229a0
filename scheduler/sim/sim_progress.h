// canopy-sim's progress display: a replay of a long trace takes minutes, so canopy-sim shows
// where it stands (simulated time, jobs done, queue, events/s). On a terminal one line rewritten
// in place twice a second; elsewhere (with --progress: logs, CI) a line every 10 s.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "absl/time/time.h"
#include "scheduler/core/clock.h"
#include "scheduler/sim/simulator.h"

namespace canopy::sim {

// "canopy: 2d 04:10:00 simulated, 41203/82247 jobs done (50.1%), 1234 pending, 812k events/s"
std::string FormatProgress(const std::string& label, const SimProgress& progress,
                           double events_per_second);

class ProgressDisplay {
 public:
  // `terminal`: rewrite one line with \r; otherwise print whole lines less often.
  ProgressDisplay(std::ostream& out, std::string label, bool terminal);
  // Called by the simulator (SimOptions::progress); shows a line when one is due.
  void Update(const SimProgress& progress);
  // The last figures, and on a terminal the end of the rewritten line.
  void Finish();

 private:
  std::ostream& out_;
  const std::string label_;
  const bool terminal_;
  core::SystemClock wall_;
  const absl::Time started_;
  absl::Time last_shown_ = absl::InfinitePast();
  SimProgress last_;
  size_t last_width_ = 0;
};

}  // namespace canopy::sim
