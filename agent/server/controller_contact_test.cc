#include "agent/server/controller_contact.h"

#include <time.h>

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace canopy::agent {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1'000'000);

TEST(ControllerContactTest, NeverFencesBeforeRegistrationOrWithoutANodeTimeout) {
  ControllerContact c;
  EXPECT_EQ(c.FenceAfter(), absl::InfiniteDuration());
  EXPECT_FALSE(c.ShouldFence(kT0 + absl::Hours(1)));
  c.Registered(kT0, absl::ZeroDuration(), absl::Seconds(10));
  EXPECT_FALSE(c.ShouldFence(kT0 + absl::Hours(1)));
  c.Registered(kT0, absl::InfiniteDuration(), absl::Seconds(10));
  EXPECT_FALSE(c.ShouldFence(kT0 + absl::Hours(1)));
}

TEST(ControllerContactTest, FencesTwoHeartbeatsBeforeTheNodeTimeoutOnce) {
  ControllerContact c;
  c.Registered(kT0, absl::Seconds(30), absl::Seconds(5));
  EXPECT_EQ(c.FenceAfter(), absl::Seconds(20));
  EXPECT_FALSE(c.ShouldFence(kT0 + absl::Seconds(19)));
  EXPECT_TRUE(c.ShouldFence(kT0 + absl::Seconds(20)));
  EXPECT_FALSE(c.ShouldFence(kT0 + absl::Seconds(21)));  // once per loss of contact
}

TEST(ControllerContactTest, CountsFromTheSendingOfTheLastAcknowledgedHeartbeat) {
  ControllerContact c;
  c.Registered(kT0, absl::Seconds(30), absl::Seconds(5));
  c.HeartbeatSent(1, kT0 + absl::Seconds(5));
  c.HeartbeatSent(2, kT0 + absl::Seconds(10));
  c.HeartbeatSent(3, kT0 + absl::Seconds(15));
  // The ack of 2 arrives late: contact is when 2 was sent, not when its ack came.
  c.HeartbeatAcknowledged(2);
  EXPECT_EQ(c.last_contact(), kT0 + absl::Seconds(10));
  EXPECT_FALSE(c.ShouldFence(kT0 + absl::Seconds(29)));
  EXPECT_TRUE(c.ShouldFence(kT0 + absl::Seconds(30)));
  // Contact again: fencing is armed anew.
  c.HeartbeatAcknowledged(3);
  EXPECT_FALSE(c.ShouldFence(kT0 + absl::Seconds(34)));
  EXPECT_TRUE(c.ShouldFence(kT0 + absl::Seconds(35)));
}

TEST(ControllerContactTest, AnAckOfAnUnknownOrOldSequenceChangesNothing) {
  ControllerContact c;
  c.Registered(kT0, absl::Seconds(30), absl::Seconds(5));
  c.HeartbeatSent(7, kT0 + absl::Seconds(5));
  c.HeartbeatAcknowledged(3);  // from an earlier stream
  EXPECT_EQ(c.last_contact(), kT0);
  c.HeartbeatAcknowledged(7);
  c.HeartbeatAcknowledged(7);  // twice
  EXPECT_EQ(c.last_contact(), kT0 + absl::Seconds(5));
}

TEST(ControllerContactTest, ANewRegistrationForgetsTheOldStreamsHeartbeats) {
  ControllerContact c;
  c.Registered(kT0, absl::Seconds(30), absl::Seconds(5));
  c.HeartbeatSent(1, kT0 + absl::Seconds(100));
  c.Registered(kT0 + absl::Seconds(50), absl::Seconds(30), absl::Seconds(5));
  c.HeartbeatAcknowledged(1);
  EXPECT_EQ(c.last_contact(), kT0 + absl::Seconds(50));
}

// canopyd's default heartbeat is a third of the timeout: the fence must wait well past one
// heartbeat (it fenced a healthy node at the very tick its next heartbeat was due).
TEST(ControllerContactTest, WithTheDefaultHeartbeatAHealthyNodeIsNeverFenced) {
  ControllerContact c;
  c.Registered(kT0, absl::Seconds(30), absl::Seconds(10));
  EXPECT_EQ(c.FenceAfter(), absl::Seconds(20));
  for (uint64_t seq = 1; seq <= 100; ++seq) {
    const absl::Time sent = kT0 + absl::Seconds(10 * static_cast<int64_t>(seq));
    // Checked at the tick the heartbeat is due, before it is sent, and just before its ack.
    EXPECT_FALSE(c.ShouldFence(sent)) << seq;
    c.HeartbeatSent(seq, sent);
    EXPECT_FALSE(c.ShouldFence(sent + absl::Milliseconds(900))) << seq;
    c.HeartbeatAcknowledged(seq);
  }
  // The shortest timeout the loaders accept, just over two heartbeats: still between the two.
  c.Registered(kT0, absl::Seconds(21), absl::Seconds(10));
  EXPECT_EQ(c.FenceAfter(), absl::Milliseconds(15500));
}

TEST(ControllerContactTest, MonotonicNowIsTheMonotonicClock) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  const absl::Time before = absl::UnixEpoch() + absl::DurationFromTimespec(ts);
  const absl::Time now = MonotonicNow();
  clock_gettime(CLOCK_MONOTONIC, &ts);
  const absl::Time after = absl::UnixEpoch() + absl::DurationFromTimespec(ts);
  // Not the wall clock (which is decades past the monotonic one's boot-time origin).
  EXPECT_GE(now, before);
  EXPECT_LE(now, after);
}

TEST(ControllerContactTest, UnacknowledgedHeartbeatsAreBounded) {
  ControllerContact c;
  c.Registered(kT0, absl::Seconds(30), absl::Seconds(5));
  for (uint64_t i = 1; i <= ControllerContact::kMaxUnacknowledged + 10; ++i) {
    c.HeartbeatSent(i, kT0 + absl::Seconds(static_cast<int64_t>(i)));
  }
  c.HeartbeatAcknowledged(5);  // dropped long ago: no contact proven by it
  EXPECT_EQ(c.last_contact(), kT0);
  c.HeartbeatAcknowledged(ControllerContact::kMaxUnacknowledged + 10);
  EXPECT_EQ(c.last_contact(),
            kT0 + absl::Seconds(static_cast<int64_t>(ControllerContact::kMaxUnacknowledged + 10)));
}

}  // namespace
}  // namespace canopy::agent
