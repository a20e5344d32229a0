#include "scheduler/state/cluster_state.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::state {
namespace {

using ::testing::ElementsAre;

const absl::Time kStart = absl::FromUnixSeconds(1'000'000);

config::ClusterConfig TwoNodes() {
  config::ClusterConfig c;
  for (const char* name : {"gpu001", "gpu002"}) {
    config::NodeConfig n;
    n.name = name;
    n.cpus = 64;
    n.real_memory_mib = 1024;
    n.gpus.push_back({"h100", 8});
    c.nodes.push_back(n);
  }
  return c;
}

NodeRegistration FullRegistration() {
  NodeRegistration r;
  r.cpus = 64;
  r.real_memory_mib = 2048;
  for (int i = 0; i < 8; ++i) {
    GpuStatus g;
    g.index = i;
    r.gpus.push_back(g);
  }
  return r;
}

TEST(ClusterStateTest, NewNodesAreUnknownUntilTheyRegister) {
  ClusterState s(TwoNodes(), kStart);
  EXPECT_EQ(s.node(core::NodeId(0)).BaseState(NodeUse{}), NodeBaseState::kUnknown);
  EXPECT_EQ(SlurmStateName(s.node(core::NodeId(0)), false, NodeUse{}), "unk*");
  ASSERT_TRUE(s.RegisterNode("gpu001", FullRegistration(), kStart).ok());
  EXPECT_EQ(s.node(core::NodeId(0)).BaseState(NodeUse{}), NodeBaseState::kIdle);
  EXPECT_EQ(SlurmStateName(s.node(core::NodeId(0)), false, NodeUse{}), "idle");
  EXPECT_TRUE(s.node(core::NodeId(0)).Usable());
}

TEST(ClusterStateTest, UnknownNodeCannotRegister) {
  ClusterState s(TwoNodes(), kStart);
  absl::StatusOr<core::NodeId> id = s.RegisterNode("gpu999", FullRegistration(), kStart);
  EXPECT_EQ(id.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(id.status().message(), ::testing::HasSubstr("gpu999"));
}

TEST(ClusterStateTest, LostStreamMakesNodeDownAfterTimeoutAndRegistrationBringsItBack) {
  ClusterState s(TwoNodes(), kStart);
  ASSERT_TRUE(s.RegisterNode("gpu001", FullRegistration(), kStart).ok());
  ASSERT_TRUE(s.RegisterNode("gpu002", FullRegistration(), kStart).ok());
  s.StreamClosed(core::NodeId(0), kStart + absl::Seconds(1));
  s.NoteHeard(core::NodeId(1), kStart + absl::Seconds(3));

  // Exactly at the timeout nothing happens; just past it the silent node goes down.
  EXPECT_TRUE(s.CheckTimeouts(kStart + absl::Seconds(3), absl::Seconds(2)).empty());
  EXPECT_THAT(s.CheckTimeouts(kStart + absl::Seconds(4), absl::Seconds(2)),
              ElementsAre(core::NodeId(0)));
  const NodeRecord& n = s.node(core::NodeId(0));
  EXPECT_EQ(n.BaseState(NodeUse{}), NodeBaseState::kDown);
  EXPECT_EQ(n.reason, "Not responding");
  EXPECT_EQ(SlurmStateName(n, false, NodeUse{}), "down*");
  // Reported once, not on every check.
  EXPECT_TRUE(s.CheckTimeouts(kStart + absl::Seconds(4), absl::Seconds(2)).empty());

  ASSERT_TRUE(s.RegisterNode("gpu001", FullRegistration(), kStart + absl::Seconds(9)).ok());
  EXPECT_EQ(s.node(core::NodeId(0)).BaseState(NodeUse{}), NodeBaseState::kIdle);
  EXPECT_EQ(s.node(core::NodeId(0)).reason, "");
}

TEST(ClusterStateTest, SilentConnectedNodeAndNeverRegisteredNodeTimeOut) {
  ClusterState s(TwoNodes(), kStart);
  ASSERT_TRUE(s.RegisterNode("gpu001", FullRegistration(), kStart + absl::Seconds(5)).ok());
  // gpu002 never registered: down once start + timeout has passed.
  EXPECT_THAT(s.CheckTimeouts(kStart + absl::Seconds(11), absl::Seconds(10)),
              ElementsAre(core::NodeId(1)));
  // gpu001 is connected but silent since t=5.
  EXPECT_THAT(s.CheckTimeouts(kStart + absl::Seconds(16), absl::Seconds(10)),
              ElementsAre(core::NodeId(0)));
}

TEST(ClusterStateTest, MissingGpusDrainWithSlurmReason) {
  ClusterState s(TwoNodes(), kStart);
  NodeRegistration r = FullRegistration();
  r.gpus.resize(6);
  ASSERT_TRUE(s.RegisterNode("gpu002", r, kStart).ok());
  const NodeRecord& n = s.node(core::NodeId(1));
  EXPECT_TRUE(n.drain);
  EXPECT_FALSE(n.Usable());
  EXPECT_EQ(n.reason, "gres/gpu count reported lower than configured (6 < 8)");
  EXPECT_EQ(SlurmStateName(n, false, NodeUse{}), "drain");
}

TEST(ClusterStateTest, AdminDrainNeedsReasonAndResumeClearsIt) {
  ClusterState s(TwoNodes(), kStart);
  ASSERT_TRUE(s.RegisterNode("gpu001", FullRegistration(), kStart).ok());
  EXPECT_EQ(s.UpdateNodes({"gpu001"}, NodeAdminAction::kDrain, "", "root", kStart).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.UpdateNodes({"gpu001", "nope"}, NodeAdminAction::kDrain, "x", "root", kStart)
                .status()
                .code(),
            absl::StatusCode::kNotFound);
  EXPECT_FALSE(s.node(core::NodeId(0)).drain) << "all-or-nothing: nothing changed";

  ASSERT_TRUE(s.UpdateNodes({"gpu001"}, NodeAdminAction::kDrain, "bad fan", "root", kStart).ok());
  EXPECT_EQ(SlurmStateName(s.node(core::NodeId(0)), true, NodeUse{}), "drained");
  EXPECT_EQ(s.node(core::NodeId(0)).reason_user, "root");
  ASSERT_TRUE(s.UpdateNodes({"gpu001"}, NodeAdminAction::kResume, "", "root", kStart).ok());
  EXPECT_EQ(SlurmStateName(s.node(core::NodeId(0)), false, NodeUse{}), "idle");
  EXPECT_EQ(s.node(core::NodeId(0)).reason, "");
}

TEST(ClusterStateTest, AllocationDecidesMixedAndAllocated) {
  ClusterState s(TwoNodes(), kStart);
  ASSERT_TRUE(s.RegisterNode("gpu001", FullRegistration(), kStart).ok());
  NodeRecord n = s.node(core::NodeId(0));
  NodeUse use{.cpus = 2, .gpus = 2};
  EXPECT_EQ(n.BaseState(use), NodeBaseState::kMixed);
  use.gpus = 8;
  EXPECT_EQ(n.BaseState(use), NodeBaseState::kAllocated);
  n.drain = true;
  EXPECT_EQ(SlurmStateName(n, false, use), "drng");
  EXPECT_EQ(SlurmStateName(n, false, NodeUse{}), "drain") << "idle once nothing holds it";
}

}  // namespace
}  // namespace canopy::state
