// Tests for the backfill pass (backfill.h) and sched/builtin's strict order (pass.h).
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "scheduler/core/job_table.h"
#include "scheduler/placement/placement_test_util.h"
#include "scheduler/placement/registry.h"
#include "scheduler/plan/applier.h"
#include "scheduler/plan/pass.h"

namespace canopy::plan {
namespace {

using placement::testing::Expand;
using placement::testing::MakeTopology;
using placement::testing::ViewBuilder;

const absl::Time kBackfillNow = absl::FromUnixSeconds(10'000);  // not a multiple of 60 s

// 8 leaves of 8 nodes × 8 GPUs under one spine: l1 = n[01-08], ..., l8 = n[57-64].
std::string EightLeaves() {
  std::string conf;
  for (int l = 0; l < 8; ++l) {
    absl::StrAppend(&conf, "SwitchName=l", l + 1, " Nodes=n[",
                    absl::Dec(l * 8 + 1, absl::kZeroPad2), "-",
                    absl::Dec(l * 8 + 8, absl::kZeroPad2), "]\n");
  }
  return conf + "SwitchName=s Switches=l[1-8]\n";
}

class BackfillTest : public ::testing::Test {
 protected:
  void SetUpCluster(const std::string& nodes, const std::string& conf) {
    topo_ = MakeTopology(nodes, conf);
    builder_ = std::make_unique<ViewBuilder>(*topo_);
  }

  core::Job& Add(uint32_t id, int nodes, absl::Duration limit, bool exclusive = true) {
    core::Job j;
    j.id = core::JobId(id);
    j.resources.min_nodes = nodes;
    j.resources.gpus_per_node = 8;
    j.resources.cpus_per_node = 8;
    j.resources.exclusive = exclusive;
    j.time_limit = limit;
    j.submit_time = j.eligible_time = kBackfillNow - absl::Seconds(100 - id);
    EXPECT_TRUE(jobs_.Add(j).ok());
    return *jobs_.Find(j.id);
  }

  // Whole nodes held by one exclusive running job expected to end at `end`.
  void Running(uint32_t id, const std::string& hosts, absl::Time end) {
    builder_->Busy(hosts);
    auto& shares = shares_.emplace_back(std::make_unique<std::vector<core::NodeShare>>());
    for (const std::string& name : Expand(hosts)) {
      shares->push_back({topo_->FindNode(name), 8, 64, 512 * 1024, {}});
    }
    running_.push_back({core::JobId(id), *shares, true, end});
  }

  void Build() { view_ = std::make_unique<placement::CapacityView>(builder_->Build()); }

  Plan Pass(absl::Time now, const PassOptions& opts) {
    return RunPass(*view_, running_, jobs_.Pending(), now, *policy_, opts);
  }

  static PassOptions Backfill() {
    PassOptions o;
    o.backfill.enabled = true;
    return o;
  }

  const PendingNote* Note(const Plan& plan, uint32_t id) {
    for (const PendingNote& n : plan.pending) {
      if (n.job == core::JobId(id)) {
        return &n;
      }
    }
    return nullptr;
  }
  const PlannedStart* Started(const Plan& plan, uint32_t id) {
    for (const PlannedStart& s : plan.starts) {
      if (s.job == core::JobId(id)) {
        return &s;
      }
    }
    return nullptr;
  }
  const PlannedReservation* Reserved(const Plan& plan, uint32_t id) {
    for (const PlannedReservation& r : plan.reservations) {
      if (r.job == core::JobId(id)) {
        return &r;
      }
    }
    return nullptr;
  }
  std::string Hosts(const std::vector<core::NodeShare>& shares) {
    std::vector<std::string> names;
    for (const core::NodeShare& s : shares) {
      names.push_back(topo_->node_name(s.node));
    }
    return slurm::CompressHostlist(names);
  }
  std::string Leaves(const std::vector<core::NodeShare>& shares) {
    std::vector<std::string> leaves;
    for (const core::NodeShare& s : shares) {
      const std::string leaf = topo_->switch_name(topo_->leaf_of(s.node));
      if (leaves.empty() || leaves.back() != leaf) {
        leaves.push_back(leaf);
      }
    }
    return absl::StrJoin(leaves, ",");
  }

  std::unique_ptr<topology::Topology> topo_;
  std::unique_ptr<ViewBuilder> builder_;
  std::unique_ptr<placement::CapacityView> view_;
  std::unique_ptr<placement::PlacementPolicy> policy_ =
      *placement::MakePlacementPolicy("placement/canopy");
  core::JobTable jobs_;
  std::vector<std::unique_ptr<std::vector<core::NodeShare>>> shares_;
  std::vector<RunningJob> running_;
};

// The acceptance scenario. Every leaf has 6 free nodes; its other 2 are held by a
// running job, the one on l3 ending 35 s from now, the others an hour or more later. Job 1 asks
// for 8 nodes on one leaf switch (--switches=1@30s); jobs 2 (8 nodes) and 3 (6 nodes) come after
// it. 35 s later the l3 job has ended.
class SwitchesScenario : public BackfillTest {
 protected:
  void SetUp() override {
    SetUpCluster("n[01-64]", EightLeaves());
    for (int l = 0; l < 8; ++l) {
      const absl::Time end = l == 2 ? kBackfillNow + absl::Seconds(35)
                                    : kBackfillNow + absl::Hours(1) + absl::Minutes(10 * l);
      Running(100 + l,
              absl::StrCat("n[", absl::Dec(l * 8 + 1, absl::kZeroPad2), "-",
                           absl::Dec(l * 8 + 2, absl::kZeroPad2), "]"),
              end);
    }
    Build();
    core::Job& first = Add(1, 8, absl::Hours(1));
    first.resources.max_switches = 1;
    first.resources.max_switch_wait = absl::Seconds(30);
    first.eligible_time = kBackfillNow;
    Add(2, 8, absl::Hours(1));
    Add(3, 6, absl::Hours(1));
  }

  // Commits `plan`, ends the l3 job and runs the next pass 35 s later.
  Plan SecondPass(const Plan& plan, const PassOptions& opts) {
    EXPECT_TRUE(PlanApplier().Apply(plan, *view_, jobs_, kBackfillNow).ok());
    const absl::Time later = kBackfillNow + absl::Seconds(35);
    std::vector<placement::NodeUse> uses;
    for (const core::NodeShare& s : running_[2].nodes) {
      uses.push_back({s.node, s.gpus, s.cpus, s.mem_mib});
    }
    EXPECT_TRUE(view_->ApplyJob(uses, true, /*start=*/false).ok());
    running_.erase(running_.begin() + 2);
    for (const PlannedStart& s : plan.starts) {
      running_.push_back(RunningJobOf(*jobs_.Find(s.job), later));
    }
    return Pass(later, opts);
  }
};

TEST_F(SwitchesScenario, WithoutBackfillLaterJobsTakeTheLeafAndTheFirstSpansTwo) {
  const Plan plan = Pass(kBackfillNow, {});
  ASSERT_NE(Note(plan, 1), nullptr);
  EXPECT_EQ(Note(plan, 1)->reason, core::JobReason::kResources);  // waiting for its switch
  ASSERT_NE(Started(plan, 2), nullptr);
  ASSERT_NE(Started(plan, 3), nullptr);
  EXPECT_EQ(Leaves(Started(plan, 3)->nodes), "l3");  // the leaf job 1 waits for
  EXPECT_TRUE(plan.reservations.empty());
  const Plan next = SecondPass(plan, {});
  ASSERT_NE(Started(next, 1), nullptr);
  EXPECT_EQ(Started(next, 1)->explanation.units_used, 2);
  EXPECT_TRUE(Started(next, 1)->explanation.switch_limit_waived);
}

TEST_F(SwitchesScenario, WithBackfillTheFirstJobHoldsItsLeafAndGetsIt) {
  const Plan plan = Pass(kBackfillNow, Backfill());
  // Job 1 is reserved on l3 from the next minute after the l3 job ends (bf_resolution 60 s).
  const PlannedReservation* r = Reserved(plan, 1);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->start, absl::FromUnixSeconds(10'080));
  EXPECT_EQ(r->end, absl::FromUnixSeconds(10'080) + absl::Hours(1));
  EXPECT_EQ(Hosts(r->nodes), "n[17-24]");
  EXPECT_EQ(r->explanation.units_used, 1);
  ASSERT_NE(Note(plan, 1), nullptr);
  EXPECT_EQ(Note(plan, 1)->reason, core::JobReason::kResources);
  EXPECT_NE(Note(plan, 1)->detail.find("expected to start at 1970-01-01T02:48:00 UTC on 8 nodes"),
            std::string::npos)
      << Note(plan, 1)->detail;
  // Jobs 2 and 3 run for an hour: they start, but not on l3.
  ASSERT_NE(Started(plan, 2), nullptr);
  ASSERT_NE(Started(plan, 3), nullptr);
  EXPECT_EQ(Leaves(Started(plan, 2)->nodes).find("l3"), std::string::npos);
  EXPECT_EQ(Leaves(Started(plan, 3)->nodes).find("l3"), std::string::npos);
  EXPECT_EQ(plan.stats.reserved, 1);
  EXPECT_EQ(plan.stats.held_back, 0);

  const Plan next = SecondPass(plan, Backfill());
  const PlannedStart* s = Started(next, 1);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(Hosts(s->nodes), "n[17-24]");
  EXPECT_EQ(s->explanation.units_used, 1);
}

TEST_F(SwitchesScenario, LaterJobsThatFitOnlyOnTheLeafAreHeldBack) {
  // Fill every leaf but l3 with jobs that end after an hour: l3's free nodes are the only ones.
  for (int l = 0; l < 8; ++l) {
    if (l != 2) {
      Running(200 + l,
              absl::StrCat("n[", absl::Dec(l * 8 + 3, absl::kZeroPad2), "-",
                           absl::Dec(l * 8 + 8, absl::kZeroPad2), "]"),
              kBackfillNow + absl::Hours(2));
    }
  }
  Build();
  jobs_ = core::JobTable();
  core::Job& first = Add(1, 8, absl::Hours(1));
  first.resources.max_switches = 1;
  first.resources.max_switch_wait = absl::Seconds(30);
  first.eligible_time = kBackfillNow;
  Add(2, 6, absl::Hours(1));            // would delay job 1: held back
  Add(3, 2, absl::Seconds(50));         // ends before job 1 starts (at 10,080): may go
  Add(4, 1, absl::InfiniteDuration());  // unlimited: never on reserved nodes
  const Plan plan = Pass(kBackfillNow, Backfill());
  ASSERT_NE(Reserved(plan, 1), nullptr);
  EXPECT_EQ(Hosts(Reserved(plan, 1)->nodes), "n[17-24]");
  ASSERT_NE(Note(plan, 2), nullptr);
  EXPECT_EQ(Note(plan, 2)->reason, core::JobReason::kPriority);
  ASSERT_NE(Started(plan, 3), nullptr);
  EXPECT_EQ(Leaves(Started(plan, 3)->nodes), "l3");
  ASSERT_NE(Note(plan, 4), nullptr);
  EXPECT_EQ(Note(plan, 4)->reason, core::JobReason::kPriority);
  // Job 2 gets a reservation after job 1 (l3 is the first leaf back, at the end of job 1).
  ASSERT_NE(Reserved(plan, 2), nullptr);
  EXPECT_GE(Reserved(plan, 2)->start, Reserved(plan, 1)->end);
  // Job 4 would hold its node for ever: it is reserved where the running job ends first and no
  // reservation follows (l1's first two nodes, back at 13,620 s).
  ASSERT_NE(Reserved(plan, 4), nullptr);
  EXPECT_EQ(Reserved(plan, 4)->start, absl::FromUnixSeconds(13'620));
  EXPECT_EQ(Reserved(plan, 4)->end, absl::InfiniteFuture());
  EXPECT_EQ(Leaves(Reserved(plan, 4)->nodes), "l1");
  EXPECT_EQ(plan.stats.held_back, 2);
}

// 2 leaves × 4 nodes; n[1-4] held for 2 hours.
class SmallCluster : public BackfillTest {
 protected:
  void SetUp() override {
    SetUpCluster("n[1-8]",
                 "SwitchName=l1 Nodes=n[1-4]\nSwitchName=l2 Nodes=n[5-8]\n"
                 "SwitchName=s Switches=l[1-2]\n");
    Running(100, "n[1-4]", kBackfillNow + absl::Hours(2));
    Build();
  }
};

TEST_F(SmallCluster, ShortJobsBackfillLongOnesWait) {
  Add(1, 8, absl::Hours(1));  // the whole cluster: in two hours
  Add(2, 1, absl::Hours(1));  // done before: starts
  Add(3, 1, absl::Hours(3));  // would delay job 1: held back
  Add(4, 2, absl::Hours(2) - absl::Seconds(10));
  const Plan plan = Pass(kBackfillNow, Backfill());
  ASSERT_NE(Reserved(plan, 1), nullptr);
  // The running job ends at 17,200 s, rounded up to a minute.
  EXPECT_EQ(Reserved(plan, 1)->start, absl::FromUnixSeconds(17'220));
  EXPECT_EQ(Reserved(plan, 1)->nodes.size(), 8u);
  ASSERT_NE(Started(plan, 2), nullptr);
  ASSERT_NE(Started(plan, 4), nullptr);  // ends at 17,190: before 17,220
  ASSERT_NE(Note(plan, 3), nullptr);
  EXPECT_EQ(Note(plan, 3)->reason, core::JobReason::kPriority);
  // Job 3 goes after job 1 ends.
  ASSERT_NE(Reserved(plan, 3), nullptr);
  EXPECT_EQ(Reserved(plan, 3)->start, Reserved(plan, 1)->start + absl::Hours(1));
  EXPECT_EQ(plan.stats.held_back, 1);
  EXPECT_EQ(plan.stats.backfill_tests, 2);
}

TEST_F(SmallCluster, IdenticalJobsQueueBehindEachOther) {
  for (uint32_t id = 1; id <= 3; ++id) {
    Add(id, 8, absl::Hours(1));
  }
  const Plan plan = Pass(kBackfillNow, Backfill());
  ASSERT_EQ(plan.reservations.size(), 3u);
  EXPECT_EQ(plan.reservations[1].start, plan.reservations[0].end);
  EXPECT_EQ(plan.reservations[2].start, plan.reservations[1].end);
  EXPECT_EQ(plan.stats.skipped_identical, 2);
  EXPECT_EQ(plan.stats.skipped_capacity, 1);  // the first: more GPUs than are free
  EXPECT_EQ(plan.stats.backfill_policy_calls, 3);
}

TEST_F(SmallCluster, MaxJobTestAndWindowLimitTheSearches) {
  Add(1, 8, absl::Hours(1));
  Add(2, 6, absl::Hours(1));
  Add(3, 1, absl::Hours(1));  // still starts: it delays nothing
  PassOptions opts = Backfill();
  opts.backfill.max_job_test = 1;
  Plan plan = Pass(kBackfillNow, opts);
  EXPECT_EQ(plan.reservations.size(), 1u);
  ASSERT_NE(Note(plan, 2), nullptr);
  EXPECT_EQ(Note(plan, 2)->reason, core::JobReason::kResources);
  EXPECT_NE(Started(plan, 3), nullptr);
  // A window shorter than the wait: nothing can be reserved, job 3 still starts.
  opts.backfill.max_job_test = 500;
  opts.backfill.window = absl::Minutes(60);
  plan = Pass(kBackfillNow, opts);
  EXPECT_TRUE(plan.reservations.empty());
  EXPECT_NE(Started(plan, 3), nullptr);
  EXPECT_EQ(plan.stats.backfill_tests, 2);
}

TEST_F(SmallCluster, UnlimitedRunningJobsNeverComeBack) {
  running_[0].end = absl::InfiniteFuture();
  Add(1, 8, absl::Hours(1));  // needs n[1-4]: never
  Add(2, 4, absl::Hours(1));  // fits now
  const Plan plan = Pass(kBackfillNow, Backfill());
  EXPECT_EQ(Reserved(plan, 1), nullptr);
  EXPECT_EQ(Note(plan, 1)->reason, core::JobReason::kResources);
  EXPECT_NE(Started(plan, 2), nullptr);
}

TEST_F(SmallCluster, OverdueRunningJobsComeBackAtTheNextStep) {
  running_[0].end = kBackfillNow - absl::Minutes(5);
  Add(1, 8, absl::Hours(1));
  const Plan plan = Pass(kBackfillNow, Backfill());
  ASSERT_NE(Reserved(plan, 1), nullptr);
  EXPECT_EQ(Reserved(plan, 1)->start, absl::FromUnixSeconds(10'020));
}

TEST_F(SmallCluster, SearchesCountOnlyThePartitionAndTheRequiredNodes) {
  // n[5-8] come back one by one over the first 40 minutes; n[1-2] (partition debug too) and the
  // rest of l1 only after two hours.
  builder_->Debug("n[1-2]");
  for (int i = 0; i < 4; ++i) {
    Running(101 + i, absl::StrCat("n", 5 + i), kBackfillNow + absl::Minutes(10 * (i + 1)));
  }
  Build();
  Add(1, 2, absl::Hours(1)).resources.partition = "debug";
  Add(2, 1, absl::Hours(1)).resources.required_nodes = {topo_->FindNode("n3")};
  const Plan plan = Pass(kBackfillNow, Backfill());
  ASSERT_NE(Reserved(plan, 1), nullptr);
  EXPECT_EQ(Reserved(plan, 1)->start, absl::FromUnixSeconds(17'220));
  EXPECT_EQ(Hosts(Reserved(plan, 1)->nodes), "n[1-2]");
  ASSERT_NE(Reserved(plan, 2), nullptr);
  EXPECT_EQ(Reserved(plan, 2)->start, absl::FromUnixSeconds(17'220));
  EXPECT_EQ(Hosts(Reserved(plan, 2)->nodes), "n3");
  // The cluster-wide counts would have allowed 10, 20, 30 and 40 minutes from now; the
  // partition's counts and the required node rule them out without asking the policy.
  EXPECT_EQ(plan.stats.backfill_policy_calls, 2);
}

TEST_F(SmallCluster, DisabledBackfillIsThePassWithoutRunningJobs) {
  Add(1, 8, absl::Hours(1));
  Add(2, 1, absl::Hours(3));
  Add(3, 2, absl::Hours(1), /*exclusive=*/false);
  const Plan with = Pass(kBackfillNow, {});
  const Plan without = RunPass(*view_, jobs_.Pending(), kBackfillNow, *policy_);
  ASSERT_EQ(with.starts.size(), without.starts.size());
  for (size_t i = 0; i < with.starts.size(); ++i) {
    EXPECT_EQ(with.starts[i].job, without.starts[i].job);
    EXPECT_EQ(with.starts[i].nodes, without.starts[i].nodes);
  }
  ASSERT_EQ(with.pending.size(), without.pending.size());
  EXPECT_TRUE(with.reservations.empty());
  EXPECT_EQ(with.starts.size(), 2u);  // job 2 starts though job 1 waits: no reservation
}

TEST_F(SmallCluster, BuiltinBlocksThePartitionOfTheFirstJobThatCannotStart) {
  builder_->Debug("n[5-8]");
  Build();
  Add(1, 8, absl::Hours(1)).resources.partition = "gpu";
  Add(2, 1, absl::Hours(1)).resources.partition = "gpu";
  Add(3, 1, absl::Hours(1)).resources.partition = "debug";
  PassOptions opts;
  opts.strict_order = true;
  const Plan plan = Pass(kBackfillNow, opts);
  ASSERT_NE(Note(plan, 2), nullptr);
  EXPECT_EQ(Note(plan, 2)->reason, core::JobReason::kPriority);
  EXPECT_NE(Started(plan, 3), nullptr);
  EXPECT_EQ(plan.stats.blocked, 1);
  // Without strict order job 2 starts.
  EXPECT_NE(Started(Pass(kBackfillNow, {}), 2), nullptr);
}

TEST(RunningJobOfTest, EndsAtStartPlusLimit) {
  core::Job job;
  job.id = core::JobId(7);
  job.state = core::JobState::kRunning;
  job.start_time = kBackfillNow - absl::Minutes(10);
  job.time_limit = absl::Hours(1);
  job.allocation.nodes = {{core::NodeId(3), 8, 8, 0, {}}};
  job.allocation.exclusive = true;
  RunningJob r = RunningJobOf(job, kBackfillNow);
  EXPECT_EQ(r.end, kBackfillNow + absl::Minutes(50));
  EXPECT_EQ(r.nodes.size(), 1u);
  EXPECT_TRUE(r.exclusive);
  job.time_limit = absl::InfiniteDuration();
  EXPECT_EQ(RunningJobOf(job, kBackfillNow).end, absl::InfiniteFuture());
  job.state = core::JobState::kCompleting;
  EXPECT_EQ(RunningJobOf(job, kBackfillNow).end, kBackfillNow);
}

}  // namespace
}  // namespace canopy::plan
