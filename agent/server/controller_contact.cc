// ControllerContact (controller_contact.h).
#include "agent/server/controller_contact.h"

#include <algorithm>
#include <chrono>

namespace canopy::agent {

absl::Time MonotonicNow() {
  return absl::UnixEpoch() + absl::FromChrono(std::chrono::steady_clock::now().time_since_epoch());
}

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
  // Two heartbeats before the timeout, but never within a heartbeat and a half of the last
  // contact, however close the timeout (both loaders only keep the heartbeat under half of it):
  // a healthy node's contact is renewed every heartbeat, plus the ack's round trip.
  return std::max(node_timeout_ - 2 * heartbeat_interval_,
                  (node_timeout_ + heartbeat_interval_) / 2);
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
