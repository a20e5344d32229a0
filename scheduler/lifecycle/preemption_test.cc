// Preemption in the lifecycle: who may preempt whom (preempt/qos, preempt/partition_prio), the
// victims chosen (one leaf, the fewest GPU-hours lost), GraceTime (signal first, requeue when it
// is up), PreemptMode REQUEUE and CANCEL, and the preemptor starting on what the victims freed.
#include <algorithm>
#include <csignal>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/lifecycle/policy_test_fixture.h"

namespace canopy::lifecycle {
namespace {

using core::JobReason;
using core::JobState;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using Ask = policy_testing::PolicyTest::Ask;

constexpr char kQosPreemption[] = R"yaml(
priority:
  type: priority/multifactor
  weight_qos: 10000
preempt:
  type: preempt/qos
  mode: REQUEUE
)yaml";

// Signals sent to `job` in the last committed batch.
std::vector<int> SignalsTo(const Effects& e, uint32_t job) {
  std::vector<int> out;
  for (const OutgoingMessage& m : e.messages) {
    if (const SignalJob* s = std::get_if<SignalJob>(&m.message);
        s != nullptr && s->job.value() == job) {
      out.push_back(s->signal);
    }
  }
  return out;
}

// The nodes sent a KillJob for `job` in `e`.
std::vector<int> KillsOf(const Effects& e, uint32_t job) {
  std::vector<int> out;
  for (const OutgoingMessage& m : e.messages) {
    if (const KillJob* k = std::get_if<KillJob>(&m.message);
        k != nullptr && k->job.value() == job) {
      out.push_back(m.node.value());
    }
  }
  return out;
}

class PreemptionTest : public policy_testing::PolicyTest {
 protected:
  void SetUp() override { Start(kQosPreemption); }

  // Fills the cluster with four one-node, four-GPU jobs: two on leaf1 running since kT0, two on
  // leaf2 since kT0 + 1 h (cheaper to preempt). Returns them by node.
  std::vector<uint32_t> FillCluster(const Ask& ask) {
    std::vector<uint32_t> ids;
    for (int i = 0; i < 4; ++i) {
      if (i == 2) {
        AdvanceTo(kT0 + absl::Hours(1));
      }
      ids.push_back(Submit(alice_, ask));
      ScheduleAndRun();
      EXPECT_EQ(Job(ids.back()).state, JobState::kRunning);
    }
    AdvanceTo(kT0 + absl::Hours(2));
    return ids;
  }

  // What PreemptAndEndCleanedUp did: the victim (0 if none was signalled), the preemptor, the
  // victim's node and the effects of its EXITED.
  struct CleanExit {
    uint32_t victim = 0;
    uint32_t preemptor = 0;
    core::NodeId node;
    Effects effects;
  };
  // Fills the cluster with `victims`, lets an inference job preempt one of them (GraceTime 30 s),
  // and reports that its script ended by the SIGTERM on a batch host that cleaned up with it.
  CleanExit PreemptAndEndCleanedUp(const Ask& victims) {
    CleanExit c;
    EXPECT_TRUE(SetQos({{"normal", "GraceTime=30"}, {"inference", "Preempt=normal"}}).ok());
    const std::vector<uint32_t> n = FillCluster(victims);
    c.preemptor = Submit(bob_, Ask().Gpus(4).Qos("inference"));
    Schedule();
    c.victim = SignalledVictim(n);
    if (c.victim == 0) {
      return c;
    }
    c.node = Job(c.victim).allocation.nodes[0].node;
    JobReport exited;
    exited.job = core::JobId(c.victim);
    exited.phase = JobPhase::kExited;
    exited.run_id = Job(c.victim).run_id;
    exited.exit_signal = SIGTERM;
    exited.cleaned_up = true;
    jobs_->JobReported(c.node, exited, c.effects);
    Commit(c.effects);
    return c;
  }

  // The one job of `jobs` the last pass signalled (its GraceTime's SIGTERM); 0 if none.
  uint32_t SignalledVictim(const std::vector<uint32_t>& jobs) {
    uint32_t victim = 0;
    for (uint32_t id : jobs) {
      if (!SignalsTo(last_, id).empty()) {
        victim = id;
      }
    }
    return victim;
  }
  // The node names of a job's allocation.
  std::vector<std::string> NodesOf(uint32_t id) {
    std::vector<std::string> names;
    for (const core::NodeShare& s : Job(id).allocation.nodes) {
      names.push_back(topology_->node_name(s.node));
    }
    return names;
  }
  void CleanUp(uint32_t id) {
    if (!Job(id).allocation.nodes.empty()) {
      Report(id, JobPhase::kCleanedUp);
    }
  }
};

TEST_F(PreemptionTest, QosPreemptorTakesTheCheapestLeafAndVictimsAreRequeued) {
  ASSERT_TRUE(SetQos({{"normal"}, {"inference", "Priority=100", "Preempt=normal"}}).ok());
  const std::vector<uint32_t> n = FillCluster(Ask().Gpus(4).Time(absl::Hours(10)));
  // Best fit packs the first two on one leaf, the next two on the other.
  ASSERT_EQ(topology_->leaf_of(Job(n[2]).allocation.nodes[0].node),
            topology_->leaf_of(Job(n[3]).allocation.nodes[0].node));
  ASSERT_NE(topology_->leaf_of(Job(n[0]).allocation.nodes[0].node),
            topology_->leaf_of(Job(n[2]).allocation.nodes[0].node));
  const std::vector<std::string> leaf2 = {NodesOf(n[2])[0], NodesOf(n[3])[0]};
  const uint32_t inf = Submit(bob_, Ask().Nodes(2).Gpus(4).Qos("inference"));
  Schedule();
  // The two younger jobs share a leaf: one switch, 8 GPU-hours lost instead of 16.
  EXPECT_EQ(Job(n[0]).state, JobState::kRunning);
  EXPECT_EQ(Job(n[1]).state, JobState::kRunning);
  for (uint32_t v : {n[2], n[3]}) {
    EXPECT_EQ(Job(v).state, JobState::kPending) << v;
    EXPECT_EQ(Job(v).restart_count, 1);
    EXPECT_THAT(Job(v).state_message, HasSubstr(absl::StrCat("preempted by job ", inf)));
  }
  EXPECT_THAT(Job(inf).placement_explanation, HasSubstr("8.00 GPU-hours lost"));
  EXPECT_EQ(Job(inf).state, JobState::kPending);
  // Once the victims' nodes are clean the preemptor starts there, ahead of them.
  for (uint32_t v : {n[2], n[3]}) {
    for (const std::string& node : leaf2) {
      JobReport r;
      r.job = core::JobId(v);
      r.phase = JobPhase::kCleanedUp;
      r.run_id = Job(v).run_id;
      Effects e;
      jobs_->JobReported(topology_->FindNode(node), r, e);
      Commit(e);
    }
  }
  ScheduleAndRun();
  EXPECT_EQ(Job(inf).state, JobState::kRunning);
  std::vector<std::string> got = NodesOf(inf);
  std::sort(got.begin(), got.end());
  std::vector<std::string> want = leaf2;
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
  EXPECT_EQ(Job(n[2]).state, JobState::kPending);
}

TEST_F(PreemptionTest, GraceTimeSignalsFirstAndRequeuesWhenItIsUp) {
  ASSERT_TRUE(
      SetQos({{"normal", "GraceTime=30"}, {"inference", "Priority=100", "Preempt=normal"}}).ok());
  const std::vector<uint32_t> n = FillCluster(Ask().Gpus(4).Time(absl::Hours(10)));
  const uint32_t inf = Submit(bob_, Ask().Nodes(1).Gpus(4).Qos("inference"));
  Schedule();
  // One victim (the cheapest), signalled with SIGTERM and still running.
  int victims = 0;
  uint32_t victim = 0;
  for (uint32_t id : n) {
    if (!SignalsTo(last_, id).empty()) {
      ++victims;
      victim = id;
      EXPECT_THAT(SignalsTo(last_, id), ElementsAre(SIGTERM));
    }
  }
  ASSERT_EQ(victims, 1);
  EXPECT_TRUE(victim == n[2] || victim == n[3]);
  EXPECT_EQ(Job(victim).state, JobState::kRunning);
  // No second round of preemption while the first victim is on its way out.
  Schedule();
  for (uint32_t id : n) {
    EXPECT_TRUE(SignalsTo(last_, id).empty());
  }
  AdvanceTo(kT0 + absl::Hours(2) + absl::Seconds(29));
  EXPECT_EQ(Job(victim).state, JobState::kRunning);
  AdvanceTo(kT0 + absl::Hours(2) + absl::Seconds(30));
  EXPECT_EQ(Job(victim).state, JobState::kPending);
  EXPECT_EQ(Job(victim).restart_count, 1);
  EXPECT_EQ(Job(inf).state, JobState::kPending);
}

// A victim whose script ends in its GraceTime (the SIGTERM, or a checkpoint and exit 0) is
// requeued, not finished; what it frees goes to the preemptor even before older jobs.
TEST_F(PreemptionTest, AVictimEndingInItsGraceTimeIsRequeuedAndItsNodeGoesToThePreemptor) {
  ASSERT_TRUE(SetQos({{"normal", "GraceTime=30"}, {"inference", "Preempt=normal"}}).ok());
  const std::vector<uint32_t> n = FillCluster(Ask().Gpus(4).Time(absl::Hours(10)));
  const uint32_t older = Submit(alice_, Ask().Gpus(4).Time(absl::Hours(10)));
  ScheduleAndRun();  // waits for resources; may not preempt anybody
  const uint32_t inf = Submit(bob_, Ask().Gpus(4).Qos("inference"));
  Schedule();
  const uint32_t victim = SignalledVictim(n);
  ASSERT_NE(victim, 0u);
  const core::NodeId node = Job(victim).allocation.nodes[0].node;
  AdvanceTo(kT0 + absl::Hours(2) + absl::Seconds(5));
  JobReport exited;
  exited.job = core::JobId(victim);
  exited.phase = JobPhase::kExited;
  exited.run_id = Job(victim).run_id;
  Effects e;
  jobs_->JobReported(node, exited, e);
  Commit(e);
  EXPECT_EQ(Job(victim).state, JobState::kPending);
  EXPECT_EQ(Job(victim).restart_count, 1);
  JobReport clean = exited;
  clean.phase = JobPhase::kCleanedUp;
  Effects e2;
  jobs_->JobReported(node, clean, e2);
  Commit(e2);
  ScheduleAndRun();
  EXPECT_EQ(Job(inf).state, JobState::kRunning);
  EXPECT_EQ(Job(inf).allocation.nodes[0].node, node);
  EXPECT_EQ(Job(older).state, JobState::kPending);
}

// The same, when the batch host cleaned up with the script's end (its EXITED says cleaned_up):
// the node is sent no KillJob, and the preemptor gets it without waiting for a CLEANED_UP.
TEST_F(PreemptionTest, AVictimWhoseBatchHostCleanedUpWithItsEndIsRequeuedWithoutAKill) {
  const CleanExit c = PreemptAndEndCleanedUp(Ask().Gpus(4).Time(absl::Hours(10)));
  ASSERT_NE(c.victim, 0u);
  EXPECT_THAT(KillsOf(c.effects, c.victim), IsEmpty());
  EXPECT_EQ(Job(c.victim).state, JobState::kPending);
  EXPECT_EQ(Job(c.victim).restart_count, 1);
  ScheduleAndRun();
  EXPECT_EQ(Job(c.preemptor).state, JobState::kRunning);
  EXPECT_EQ(Job(c.preemptor).allocation.nodes[0].node, c.node);
}

// A victim that may not be requeued ends PREEMPTED at once, its batch host sent no KillJob.
TEST_F(PreemptionTest, AVictimThatMayNotBeRequeuedEndsAtOnceWhenItsBatchHostCleanedUp) {
  const CleanExit c = PreemptAndEndCleanedUp(Ask().Gpus(4).Time(absl::Hours(10)).NoRequeue());
  ASSERT_NE(c.victim, 0u);
  EXPECT_THAT(KillsOf(c.effects, c.victim), IsEmpty());
  EXPECT_EQ(Job(c.victim).state, JobState::kPreempted);
  ScheduleAndRun();
  EXPECT_EQ(Job(c.preemptor).state, JobState::kRunning);
  EXPECT_EQ(Job(c.preemptor).allocation.nodes[0].node, c.node);
}

// A victim that goes COMPLETING another way in its GraceTime (here scancel) no longer waits
// for its preemption: on a node that never confirms the clean-up it still ends at the clean-up
// deadline, as any job does. It used to stay COMPLETING, holding its node, with its deadline
// stuck in the past (so a loop that waits for the next deadline never ended).
TEST_F(PreemptionTest, AVictimCancelledInItsGraceTimeStillEndsAtTheCleanupDeadline) {
  ASSERT_TRUE(
      SetQos({{"normal", "GraceTime=30"}, {"inference", "Priority=100", "Preempt=normal"}}).ok());
  const std::vector<uint32_t> n = FillCluster(Ask().Gpus(4).Time(absl::Hours(10)));
  Submit(bob_, Ask().Nodes(1).Gpus(4).Qos("inference"));
  Schedule();
  const uint32_t victim = SignalledVictim(n);
  ASSERT_NE(victim, 0u);
  const absl::Time signalled = clock_.Now();
  clock_.Set(signalled + absl::Seconds(10));
  CancelRequest cancel;
  cancel.job_ids = {victim};
  Effects e;
  jobs_->Cancel(cancel, alice_, e);
  Commit(e);
  ASSERT_EQ(Job(victim).state, JobState::kCompleting);
  // No CLEANED_UP ever comes (a process stuck in the kernel). Ticks by hand: AdvanceTo would
  // never return while the deadline stays in the past.
  for (absl::Duration t = absl::Seconds(15); t <= absl::Seconds(300); t += absl::Seconds(5)) {
    clock_.Set(signalled + t);
    Effects tick;
    jobs_->Tick(tick);
    Commit(tick);
  }
  EXPECT_EQ(Job(victim).state, JobState::kCancelled);
  EXPECT_GT(jobs_->NextDeadline(), clock_.Now());
}

TEST_F(PreemptionTest, CancelModeAndJobsThatMayNotBeRequeuedEndPreempted) {
  ASSERT_TRUE(SetQos({{"normal"},
                      {"besteffort", "PreemptMode=CANCEL"},
                      {"inference", "Priority=100", "Preempt=normal,besteffort"}})
                  .ok());
  const uint32_t be = Submit(alice_, Ask().Gpus(4).Qos("besteffort").Time(absl::Hours(10)));
  const uint32_t nr = Submit(alice_, Ask().Gpus(4).Time(absl::Hours(10)).NoRequeue());
  ScheduleAndRun();
  const uint32_t inf = Submit(bob_, Ask().Nodes(4).Gpus(4).Qos("inference"));
  (void)inf;
  const uint32_t other1 = Submit(alice_, Ask().Gpus(4).Time(absl::Hours(10)));
  const uint32_t other2 = Submit(alice_, Ask().Gpus(4).Time(absl::Hours(10)));
  (void)other1;
  (void)other2;
  Schedule();
  for (uint32_t v : {be, nr}) {
    EXPECT_EQ(Job(v).state, JobState::kCompleting) << v;
    CleanUp(v);
    EXPECT_EQ(Job(v).state, JobState::kPreempted) << v;
  }
}

TEST_F(PreemptionTest, NobodyIsPreemptedWithoutAPreemptRelationOrWithModeOff) {
  ASSERT_TRUE(SetQos({{"normal"}, {"high", "Priority=100"}}).ok());
  const std::vector<uint32_t> n = FillCluster(Ask().Gpus(4).Time(absl::Hours(10)));
  const uint32_t h = Submit(bob_, Ask().Gpus(4).Qos("high"));
  Schedule();
  for (uint32_t id : n) {
    EXPECT_EQ(Job(id).state, JobState::kRunning);
  }
  EXPECT_EQ(Job(h).reason, JobReason::kResources);
  ASSERT_TRUE(
      SetQos({{"normal", "PreemptMode=OFF"}, {"high", "Priority=100", "Preempt=normal"}}).ok());
  Schedule();
  for (uint32_t id : n) {
    EXPECT_EQ(Job(id).state, JobState::kRunning);
  }
}

TEST(PartitionPreemptionTest, HigherTierPartitionPreemptsLowerOne) {
  struct T : policy_testing::PolicyTest {
    void TestBody() override {}
  } t;
  t.Start("preempt:\n  type: preempt/partition_prio\n  mode: REQUEUE\n");
  std::vector<uint32_t> low;
  for (int i = 0; i < 4; ++i) {
    low.push_back(t.Submit(t.alice_, Ask().Gpus(4).Partition("low").Time(absl::Hours(10))));
  }
  t.ScheduleAndRun();
  const uint32_t high = t.Submit(t.bob_, Ask().Gpus(2).Partition("high"));
  t.Schedule();
  int requeued = 0;
  for (uint32_t id : low) {
    requeued += t.Job(id).state == JobState::kPending ? 1 : 0;
  }
  EXPECT_EQ(requeued, 1);
  EXPECT_EQ(t.Job(high).state, JobState::kPending);
  // A low job never preempts a high one.
  const uint32_t low5 = t.Submit(t.alice_, Ask().Gpus(4).Partition("low"));
  t.Schedule();
  EXPECT_EQ(t.Job(low5).state, JobState::kPending);
}

}  // namespace
}  // namespace canopy::lifecycle
