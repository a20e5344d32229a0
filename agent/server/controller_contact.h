// ControllerContact: when this node last knew the controller was hearing it, and so when it must
// fence its jobs (agent.proto, RegisterAck.node_timeout).
//
// The controller declares a node DOWN, and requeues its jobs elsewhere, once it has heard nothing
// from it for node_timeout. The agent cannot tell a dead controller from a network cut, so it
// counts from the last moment it *knows* the controller heard it: the sending of the last
// heartbeat (or Register) that the controller acknowledged. That moment is no later than the
// controller's own "last heard", so fencing at `node_timeout - 2 x heartbeat_interval` after it
// (at least half way between one heartbeat and the timeout) kills the jobs before the controller
// can hand their nodes' work to others, with margin for the kill itself.
//
// Pure bookkeeping: the caller passes the time, from a monotonic clock (MonotonicNow(): a step
// of the wall clock must neither fence a healthy node nor delay a fence). Not thread-safe
// (NodeSession guards it).
#pragma once

#include <cstdint>
#include <deque>
#include <utility>

#include "absl/time/time.h"

namespace canopy::agent {

// CLOCK_MONOTONIC as an absl::Time (only differences mean anything).
absl::Time MonotonicNow();

class ControllerContact {
 public:
  // A Register was sent at `sent` and has now been acknowledged, with the controller's settings.
  // `node_timeout` zero (or infinite): never fence.
  void Registered(absl::Time sent, absl::Duration node_timeout, absl::Duration heartbeat_interval);
  // A heartbeat with `sequence` was sent at `sent`.
  void HeartbeatSent(uint64_t sequence, absl::Time sent);
  // The controller acknowledged heartbeat `sequence` (and so every earlier one).
  void HeartbeatAcknowledged(uint64_t sequence);

  // How long after the last known contact the node fences; InfiniteDuration() when it never
  // does (no registration yet, or no node timeout).
  absl::Duration FenceAfter() const;
  // True once, when `now` is past the fence deadline; again only after a new contact.
  bool ShouldFence(absl::Time now);
  absl::Time last_contact() const { return last_contact_; }

  // Heartbeats kept waiting for an ack; older ones are dropped (their ack can only be later).
  static constexpr size_t kMaxUnacknowledged = 4096;

 private:
  absl::Duration node_timeout_ = absl::ZeroDuration();
  absl::Duration heartbeat_interval_ = absl::ZeroDuration();
  absl::Time last_contact_ = absl::InfinitePast();
  bool fenced_ = false;                                         // since last_contact_
  std::deque<std::pair<uint64_t, absl::Time>> unacknowledged_;  // (sequence, sent), ascending
};

}  // namespace canopy::agent
