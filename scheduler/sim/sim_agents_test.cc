// SimulatedAgents answer as a real agent does (sim_agents.h).
#include "scheduler/sim/sim_agents.h"

#include <optional>
#include <utility>

#include "gtest/gtest.h"

namespace canopy::sim {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1'000'000);

// The report of the next event, which must be an agent report.
std::optional<std::pair<core::NodeId, lifecycle::JobReport>> NextReport(EventQueue& events,
                                                                        SimulatedAgents& agents) {
  if (events.empty()) {
    ADD_FAILURE() << "no event";
    return std::nullopt;
  }
  const Event e = events.Pop();
  EXPECT_EQ(e.kind, EventKind::kAgentReport);
  return agents.Take(e.index);
}

TEST(SimulatedAgentsTest, AScriptThatEndsByItselfReportsItsNodeCleanedUpWithIt) {
  EventQueue events;
  SimulatedAgents agents(events, 2, AgentDelays{});
  agents.RunScript(core::JobId(7), core::NodeId(1), 3, kT0 + absl::Seconds(10));
  std::optional<std::pair<core::NodeId, lifecycle::JobReport>> r = NextReport(events, agents);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->first, core::NodeId(1));
  EXPECT_EQ(r->second.phase, lifecycle::JobPhase::kExited);
  EXPECT_EQ(r->second.run_id, 3u);
  EXPECT_TRUE(r->second.cleaned_up);
  EXPECT_TRUE(events.empty());
}

// A cleanup delay stands for an epilog or processes slow to die: the EXITED goes alone, and the
// KillJob the controller sends at once is answered once the delay is over.
TEST(SimulatedAgentsTest, WithACleanupDelayTheExitGoesAloneAndTheCleanUpFollows) {
  EventQueue events;
  AgentDelays delays;
  delays.cleanup = absl::Seconds(2);
  SimulatedAgents agents(events, 2, delays);
  const absl::Time end = kT0 + absl::Seconds(10);
  agents.RunScript(core::JobId(7), core::NodeId(1), 3, end);
  std::optional<std::pair<core::NodeId, lifecycle::JobReport>> exited = NextReport(events, agents);
  ASSERT_TRUE(exited.has_value());
  EXPECT_EQ(exited->second.phase, lifecycle::JobPhase::kExited);
  EXPECT_FALSE(exited->second.cleaned_up);

  agents.Deliver({{core::NodeId(1), lifecycle::KillJob{core::JobId(7), "batch script ended"}}},
                 end);
  ASSERT_FALSE(events.empty());
  const Event e = events.Pop();
  EXPECT_EQ(e.time, end + absl::Seconds(2));
  std::optional<std::pair<core::NodeId, lifecycle::JobReport>> cleaned = agents.Take(e.index);
  ASSERT_TRUE(cleaned.has_value());
  EXPECT_EQ(cleaned->second.phase, lifecycle::JobPhase::kCleanedUp);
}

}  // namespace
}  // namespace canopy::sim
