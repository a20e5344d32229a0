#include "scheduler/sim/sim_progress.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace canopy::sim {

std::string FormatProgress(const std::string& label, const SimProgress& p,
                           double events_per_second) {
  const int64_t s = absl::ToInt64Seconds(p.simulated);
  const double percent =
      p.jobs_total > 0 ? 100.0 * static_cast<double>(p.jobs_done) / p.jobs_total : 100.0;
  std::string rate = events_per_second >= 1e6   ? absl::StrFormat("%.1fM", events_per_second / 1e6)
                     : events_per_second >= 1e3 ? absl::StrFormat("%.0fk", events_per_second / 1e3)
                                                : absl::StrFormat("%.0f", events_per_second);
  return absl::StrFormat(
      "%s: %dd %02d:%02d:%02d simulated, %d/%d jobs done (%.1f%%), %d pending, %s events/s", label,
      s / 86400, s / 3600 % 24, s / 60 % 60, s % 60, p.jobs_done, p.jobs_total, percent, p.pending,
      rate);
}

ProgressDisplay::ProgressDisplay(std::ostream& out, std::string label, bool terminal)
    : out_(out), label_(std::move(label)), terminal_(terminal), started_(wall_.Now()) {}

void ProgressDisplay::Update(const SimProgress& progress) {
  last_ = progress;
  const absl::Time now = wall_.Now();
  if (now - last_shown_ < (terminal_ ? absl::Milliseconds(500) : absl::Seconds(10))) {
    return;
  }
  last_shown_ = now;
  const double elapsed = std::max(1e-9, absl::ToDoubleSeconds(now - started_));
  const std::string line =
      FormatProgress(label_, progress, static_cast<double>(progress.events) / elapsed);
  if (terminal_) {
    // Pad over what the previous, possibly longer, line left on the terminal.
    out_ << '\r' << line
         << std::string(last_width_ > line.size() ? last_width_ - line.size() : 0, ' ')
         << std::flush;
    last_width_ = line.size();
  } else {
    out_ << line << '\n' << std::flush;
  }
}

void ProgressDisplay::Finish() {
  last_shown_ = absl::InfinitePast();
  Update(last_);
  if (terminal_) {
    out_ << '\n' << std::flush;
  }
}

}  // namespace canopy::sim
