// ControllerContact (controller_contact.h).
#include "agent/server/controller_contact.h"

#include <algorithm>

namespace canopy::agent {

void ControllerContact::Registered(absl::Time sent, absl::Duration node_timeout,
                                   absl::Duration heartbeat_interval) {
  node_timeout_ = node_timeout;
  heartbeat_interval_ = heartbeat_interval;
  last_contact_ = sent;
  fenced_ = false;
  // Sequences start over on a new stream.
  unacknowledged_.clear();
}

void ControllerContact::HeartbeatSent(uint64_t sequence, absl::Time sent) {
  if (unacknowledged_.size() >= kMaxUnacknowledged) {
    unacknowledged_.pop_front();
  }
  unacknowledged_.emplace_back(sequence, sent);
}

void ControllerContact::HeartbeatAcknowledged(uint64_t sequence) {
  while (!unacknowledged_.empty() && unacknowledged_.front().first <= sequence) {
    if (unacknowledged_.front().first == sequence) {
      last_contact_ = std::max(last_contact_, unacknowledged_.front().second);
      fenced_ = false;
    }
    unacknowledged_.pop_front();
  }
}

absl::Duration ControllerContact::FenceAfter() const {
  if (last_contact_ == absl::InfinitePast() || node_timeout_ <= absl::ZeroDuration() ||
      node_timeout_ == absl::InfiniteDuration()) {
    return absl::InfiniteDuration();
  }
  const absl::Duration after = node_timeout_ - 2 * heartbeat_interval_;
  // Both loaders keep the heartbeat under half the timeout; a controller that does not still
  // gets a fence before its timeout.
  return after > absl::ZeroDuration() ? after : node_timeout_ / 2;
}

bool ControllerContact::ShouldFence(absl::Time now) {
  if (fenced_) {
    return false;
  }
  const absl::Duration after = FenceAfter();
  if (after == absl::InfiniteDuration() || now - last_contact_ < after) {
    return false;
  }
  fenced_ = true;
  return true;
}

}  // namespace canopy::agent
