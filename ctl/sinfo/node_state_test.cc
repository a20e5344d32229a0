// Node state names and sinfo -t, as Slurm 22.05 names and selects them.
#include "ctl/sinfo/node_state.h"

#include "absl/strings/ascii.h"
#include "gtest/gtest.h"

namespace canopy::ctl::sinfo {
namespace {

std::string Compact(uint32_t s) { return absl::AsciiStrToLower(NodeStateName(s, true)); }
std::string Long(uint32_t s) { return absl::AsciiStrToLower(NodeStateName(s, false)); }

TEST(NodeStateTest, StatesCanopyProduces) {
  EXPECT_EQ(Compact(kStateIdle), "idle");
  EXPECT_EQ(Compact(kStateMixed), "mix");
  EXPECT_EQ(Long(kStateMixed), "mixed");
  EXPECT_EQ(Compact(kStateAllocated), "alloc");
  EXPECT_EQ(Long(kStateAllocated), "allocated");
  EXPECT_EQ(Compact(kStateDown | kFlagNoRespond), "down*");
  EXPECT_EQ(Compact(kStateUnknown | kFlagNoRespond), "unk*");
  EXPECT_EQ(Long(kStateUnknown), "unknown");
  EXPECT_EQ(Compact(kStateIdle | kFlagDrain), "drain");
  EXPECT_EQ(Long(kStateIdle | kFlagDrain), "drained");
  EXPECT_EQ(Compact(kStateMixed | kFlagDrain), "drng");
  EXPECT_EQ(Long(kStateAllocated | kFlagDrain | kFlagNoRespond), "draining*");
  EXPECT_EQ(Compact(kStateDown | kFlagDrain), "drain");  // the drain flag wins over DOWN
  EXPECT_EQ(Compact(kStateIdle | kFlagPlanned), "plnd");
  EXPECT_EQ(Long(kStateIdle | kFlagPlanned), "planned");
  EXPECT_EQ(Compact(kStateMixed | kFlagPlanned), "mix-");
  EXPECT_EQ(Compact(kStateIdle | kFlagPlanned | kFlagNoRespond), "idle*");
}

TEST(NodeStateTest, SuffixesOfFlagsCanopyDoesNotReport) {
  EXPECT_EQ(Compact(kStateIdle | kFlagPoweredDown), "idle~");
  EXPECT_EQ(Compact(kStateIdle | kFlagPoweringUp), "idle#");
  EXPECT_EQ(Compact(kStateIdle | kFlagPowerDown), "idle!");
  EXPECT_EQ(Compact(kStateIdle | kFlagPoweringDown), "idle%");
  EXPECT_EQ(Compact(kStateAllocated | kFlagMaint), "alloc$");
  EXPECT_EQ(Compact(kStateIdle | kFlagMaint), "maint");
  EXPECT_EQ(Compact(kStateMixed | kFlagRebootRequested), "mix@");
  EXPECT_EQ(Compact(kStateIdle | kFlagRebootRequested), "boot");
  EXPECT_EQ(Compact(kStateIdle | kFlagRebootIssued), "boot^");
  EXPECT_EQ(Compact(kStateIdle | kFlagFail), "fail");
  EXPECT_EQ(Compact(kStateAllocated | kFlagFail), "failg");
  EXPECT_EQ(Compact(kStateAllocated | kFlagCompleting), "alloc+");
  EXPECT_EQ(Compact(kStateIdle | kFlagCompleting), "comp");
  EXPECT_EQ(Compact(kStateIdle | kFlagDrain | kFlagPoweredDown), "drain~");
  EXPECT_EQ(Compact(kStateIdle | kFlagReserved), "resv");
  EXPECT_EQ(Compact(kStateIdle | kFlagNet), "npc");
  EXPECT_EQ(Compact(kStateFuture), "futr");
  EXPECT_EQ(Compact(kStateIdle | kFlagInvalidReg), "inval");
}

TEST(NodeStateTest, StateComplete) {
  EXPECT_EQ(NodeStateComplete(kStateIdle), "idle");
  EXPECT_EQ(NodeStateComplete(kStateIdle | kFlagDrain), "idle+drain");
  EXPECT_EQ(NodeStateComplete(kStateDown | kFlagNoRespond), "down+not_responding");
  EXPECT_EQ(NodeStateComplete(kStateMixed | kFlagPlanned), "mixed+planned");
}

TEST(NodeStateTest, FromTheController) {
  canopy::v1::Node n;
  n.set_state(canopy::v1::NODE_STATE_MIXED);
  n.set_drain(true);
  EXPECT_EQ(SlurmNodeState(n, false), kStateMixed | kFlagDrain);
  n.set_not_responding(true);
  // Only idle nodes are flagged as planned.
  EXPECT_EQ(SlurmNodeState(n, true), kStateMixed | kFlagDrain | kFlagNoRespond);
  canopy::v1::Node idle;
  idle.set_state(canopy::v1::NODE_STATE_IDLE);
  EXPECT_EQ(SlurmNodeState(idle, true), kStateIdle | kFlagPlanned);
  // Never registered: the controller's "unk*".
  canopy::v1::Node unknown;
  unknown.set_state(canopy::v1::NODE_STATE_UNKNOWN);
  unknown.set_slurm_state("unk*");
  EXPECT_EQ(SlurmNodeState(unknown, false), kStateUnknown | kFlagNoRespond);
  // ALLOCATED only when every CPU is allocated (all GPUs taken by a 1-CPU job: MIXED).
  canopy::v1::Node busy;
  busy.set_state(canopy::v1::NODE_STATE_ALLOCATED);
  busy.set_cpus(8);
  busy.set_alloc_cpus(1);
  EXPECT_EQ(SlurmNodeState(busy, false), kStateMixed);
  busy.set_alloc_cpus(8);
  EXPECT_EQ(SlurmNodeState(busy, false), kStateAllocated);
  busy.set_state(canopy::v1::NODE_STATE_MIXED);
  EXPECT_EQ(SlurmNodeState(busy, false), kStateAllocated);
  // A record without `state` falls back to the name.
  canopy::v1::Node old;
  old.set_slurm_state("drng");
  EXPECT_EQ(SlurmNodeState(old, false), kStateMixed | kFlagDrain);
}

TEST(NodeStateTest, StateFilter) {
  auto matches = [](const char* filter, uint32_t state, bool allocated = false) {
    absl::StatusOr<StateFilter> f = ParseStateFilter(filter);
    EXPECT_TRUE(f.ok()) << f.status();
    return f.ok() && StateFilterMatches(*f, state, allocated);
  };
  EXPECT_TRUE(matches("idle", kStateIdle));
  EXPECT_TRUE(matches("IDLE", kStateIdle | kFlagNoRespond));
  EXPECT_TRUE(matches("idle", kStateIdle | kFlagDrain));  // as 22.05: drained idle nodes too
  EXPECT_TRUE(matches("i", kStateIdle));                  // a prefix names the state
  EXPECT_FALSE(matches("idle", kStateMixed));
  EXPECT_TRUE(matches("alloc", kStateMixed, true));  // any node with allocated CPUs
  EXPECT_FALSE(matches("alloc", kStateIdle));
  EXPECT_TRUE(matches("drain", kStateMixed | kFlagDrain));
  EXPECT_TRUE(matches("drain", kStateIdle | kFlagDrain));
  EXPECT_TRUE(matches("draining", kStateMixed | kFlagDrain));
  EXPECT_FALSE(matches("drng", kStateIdle | kFlagDrain));
  EXPECT_TRUE(matches("drained", kStateIdle | kFlagDrain));
  EXPECT_FALSE(matches("drained", kStateMixed | kFlagDrain));
  EXPECT_TRUE(matches("down,drain", kStateDown));
  EXPECT_TRUE(matches("no_respond", kStateIdle | kFlagNoRespond));
  EXPECT_TRUE(matches("plnd", kStateIdle | kFlagPlanned));
  EXPECT_TRUE(matches("planned", kStateMixed | kFlagPlanned));
  EXPECT_TRUE(matches("down&no_respond", kStateDown | kFlagNoRespond));
  EXPECT_FALSE(matches("down&no_respond", kStateDown));
  EXPECT_TRUE(matches("unk", kStateUnknown | kFlagNoRespond));
  EXPECT_TRUE(matches("all", kStateDown));
  EXPECT_TRUE(matches("All", kStateMixed));
}

TEST(NodeStateTest, BadStateNamesTheItem) {
  absl::StatusOr<StateFilter> f = ParseStateFilter("idle,nosuch");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message().substr(0, f.status().message().find('\n')),
            "Bad state string: \"nosuch\"");
}

}  // namespace
}  // namespace canopy::ctl::sinfo
