// Property test for the backfill pass: random small clusters and queues (fixed seeds, logged on
// failure). After one pass, time runs forward on time limits alone (running and started jobs end
// exactly at their limits, nothing new arrives, every reservation starts when promised); then no
// node may ever hold more than it has, and an exclusive job never shares its node. That is:
// nothing started now delays a reservation, reservations never overlap beyond capacity, and no
// GPU is double-booked now.
#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "scheduler/core/job_table.h"
#include "scheduler/placement/placement_test_util.h"
#include "scheduler/placement/registry.h"
#include "scheduler/plan/applier.h"
#include "scheduler/plan/pass.h"

namespace canopy::plan {
namespace {

using placement::testing::MakeTopology;
using placement::testing::ViewBuilder;

const absl::Time kPropertyNow = absl::FromUnixSeconds(1'700'000'123);

// What one node holds over [start, end).
struct Interval {
  absl::Time start;
  absl::Time end;
  core::NodeShare share;
  bool exclusive = false;
  std::string what;
};

struct Workload {
  std::unique_ptr<topology::Topology> topo;
  std::unique_ptr<placement::CapacityView> view;
  std::vector<std::vector<core::NodeShare>> running_shares;
  std::vector<RunningJob> running;
  core::JobTable jobs;
  PassOptions options;
};

int Pick(std::mt19937& rng, int lo, int hi) {  // in [lo, hi]
  return lo + static_cast<int>(rng() % static_cast<uint32_t>(hi - lo + 1));
}

std::unique_ptr<Workload> MakeWorkload(uint32_t seed) {
  std::mt19937 rng(seed);
  auto w = std::make_unique<Workload>();
  const int leaves = Pick(rng, 2, 4);
  const int per_leaf = Pick(rng, 2, 4);
  const int nodes = leaves * per_leaf;
  std::string conf;
  for (int l = 0; l < leaves; ++l) {
    absl::StrAppend(&conf, "SwitchName=l", l + 1, " Nodes=n[", l * per_leaf + 1, "-",
                    (l + 1) * per_leaf, "]\n");
  }
  absl::StrAppend(&conf, "SwitchName=s Switches=l[1-", leaves, "]\n");
  w->topo = MakeTopology(absl::StrCat("n[1-", nodes, "]"), conf);
  w->view = std::make_unique<placement::CapacityView>(ViewBuilder(*w->topo, 4).Build());

  // Running jobs on random nodes, with random ends (some unlimited).
  const int n_running = Pick(rng, 0, nodes);
  w->running_shares.reserve(n_running);
  for (int i = 0; i < n_running; ++i) {
    const bool exclusive = rng() % 3 == 0;
    const int gpus = Pick(rng, 1, 4);
    const int want = Pick(rng, 1, 2);
    std::vector<core::NodeShare> shares;
    std::vector<placement::NodeUse> uses;
    const int first = Pick(rng, 0, nodes - 1);
    for (int k = 0; k < nodes && static_cast<int>(shares.size()) < want; ++k) {
      const core::NodeId id((first + k) % nodes);
      const placement::NodeCapacity& n = w->view->node(id);
      if (n.exclusive || (exclusive && n.jobs > 0) || n.free_gpus < gpus) {
        continue;
      }
      shares.push_back({id, gpus, 4 * gpus, 0, {}});
      uses.push_back({id, gpus, 4 * gpus, 0});
    }
    if (shares.empty() || !w->view->ApplyJob(uses, exclusive, true).ok()) {
      continue;
    }
    std::sort(shares.begin(), shares.end(),
              [](const core::NodeShare& a, const core::NodeShare& b) { return a.node < b.node; });
    w->running_shares.push_back(std::move(shares));
    const absl::Time end = rng() % 10 == 0 ? absl::InfiniteFuture()
                                           : kPropertyNow + absl::Seconds(Pick(rng, 1, 5 * 3600));
    w->running.push_back({core::JobId(1000 + i), w->running_shares.back(), exclusive, end});
  }

  const absl::Duration limits[] = {absl::Minutes(5), absl::Minutes(30), absl::Hours(1),
                                   absl::Hours(3),   absl::Hours(10),   absl::InfiniteDuration()};
  const int n_jobs = Pick(rng, 5, 30);
  for (int i = 1; i <= n_jobs; ++i) {
    core::Job j;
    j.id = core::JobId(i);
    j.resources.min_nodes = Pick(rng, 1, std::min(3, nodes));
    j.resources.gpus_per_node = Pick(rng, 1, 4);
    j.resources.cpus_per_node = 4 * j.resources.gpus_per_node;
    j.resources.exclusive = rng() % 4 == 0;
    if (j.resources.min_nodes > 1 && rng() % 6 == 0) {
      j.resources.max_switches = 1;
      j.resources.max_switch_wait = absl::Seconds(Pick(rng, 0, 900));
    }
    j.time_limit = limits[rng() % 6];
    j.submit_time = j.eligible_time = kPropertyNow - absl::Seconds(Pick(rng, 0, 600));
    EXPECT_TRUE(w->jobs.Add(j).ok());
  }
  w->options.backfill.enabled = true;
  const absl::Duration resolutions[] = {absl::Seconds(1), absl::Seconds(60), absl::Seconds(300)};
  w->options.backfill.resolution = resolutions[rng() % 3];
  w->options.backfill.window = rng() % 2 == 0 ? absl::Minutes(1440) : absl::Minutes(90);
  w->options.backfill.max_job_test = rng() % 4 == 0 ? 3 : 500;
  return w;
}

// Every moment a node's use changes, it holds no more than it has, and an exclusive job holds
// it alone. Returns the first violation, or "".
std::string CheckIntervals(const placement::CapacityView& view,
                           const std::vector<Interval>& intervals) {
  for (const Interval& at : intervals) {
    const placement::NodeCapacity& n = view.node(at.share.node);
    int64_t gpus = 0, cpus = 0, mem = 0;
    int holders = 0;
    bool exclusive = false;
    std::string who;
    for (const Interval& i : intervals) {
      if (i.share.node != at.share.node || i.start > at.start || i.end <= at.start) {
        continue;
      }
      gpus += i.share.gpus;
      cpus += i.share.cpus;
      mem += i.share.mem_mib;
      ++holders;
      exclusive = exclusive || i.exclusive;
      absl::StrAppend(&who, " ", i.what);
    }
    if (gpus > n.total_gpus || cpus > n.total_cpus || mem > n.total_mem_mib ||
        (exclusive && holders > 1)) {
      return absl::StrCat("node ", at.share.node.value(), " at +",
                          absl::FormatDuration(at.start - kPropertyNow), ": ", gpus, " GPUs, ",
                          cpus, " CPUs, ", holders, " holders (exclusive: ", exclusive, "):", who);
    }
  }
  return "";
}

TEST(BackfillPropertyTest, NothingDelaysAReservationAndNothingIsDoubleBooked) {
  auto policy = *placement::MakePlacementPolicy("placement/canopy");
  int reservations = 0, starts = 0, held_back = 0;
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE(absl::StrCat("seed ", seed));
    std::unique_ptr<Workload> w = MakeWorkload(seed);
    const std::vector<const core::Job*> pending = w->jobs.Pending();
    const Plan plan = RunPass(*w->view, w->running, pending, kPropertyNow, *policy, w->options);
    const BackfillOptions& bf = w->options.backfill;

    std::vector<Interval> intervals;
    for (const RunningJob& r : w->running) {
      for (const core::NodeShare& s : r.nodes) {
        intervals.push_back(
            {kPropertyNow, r.end, s, r.exclusive, absl::StrCat("running", r.job.value())});
      }
    }
    std::vector<bool> seen(pending.size() + 1, false);
    for (const PlannedStart& s : plan.starts) {
      const core::Job& job = *w->jobs.Find(s.job);
      EXPECT_FALSE(seen[s.job.value()]);
      seen[s.job.value()] = true;
      for (const core::NodeShare& share : s.nodes) {
        intervals.push_back({kPropertyNow, kPropertyNow + job.time_limit, share, s.exclusive,
                             absl::StrCat("start", s.job.value())});
      }
    }
    for (const PlannedReservation& r : plan.reservations) {
      const core::Job& job = *w->jobs.Find(r.job);
      EXPECT_FALSE(seen[r.job.value()]) << "job " << r.job.value() << " started and reserved";
      seen[r.job.value()] = true;
      EXPECT_GT(r.start, kPropertyNow);
      EXPECT_LE(r.start, kPropertyNow + bf.window);
      EXPECT_EQ((r.start - absl::UnixEpoch()) % bf.resolution, absl::ZeroDuration());
      EXPECT_EQ(r.end, r.start + job.time_limit);
      EXPECT_GE(static_cast<int>(r.nodes.size()), job.resources.min_nodes);
      if (job.resources.max_switches > 0 &&
          r.start < job.eligible_time + job.resources.max_switch_wait) {
        EXPECT_LE(r.explanation.units_used, job.resources.max_switches);
      }
      for (const core::NodeShare& share : r.nodes) {
        EXPECT_EQ(share.gpus, job.resources.gpus_per_node);
        intervals.push_back(
            {r.start, r.end, share, r.exclusive, absl::StrCat("reserved", r.job.value())});
      }
      bool noted = false;
      for (const PendingNote& n : plan.pending) {
        if (n.job == r.job) {
          noted = true;
          EXPECT_TRUE(n.reason == core::JobReason::kResources ||
                      n.reason == core::JobReason::kPriority);
        }
      }
      EXPECT_TRUE(noted) << "reserved job " << r.job.value() << " has no pending note";
    }
    EXPECT_LE(plan.stats.reserved, plan.stats.backfill_tests);
    EXPECT_LE(plan.stats.backfill_tests, bf.max_job_test);
    const std::string violation = CheckIntervals(*w->view, intervals);
    EXPECT_EQ(violation, "");

    // Same inputs, same plan.
    const Plan again = RunPass(*w->view, w->running, pending, kPropertyNow, *policy, w->options);
    ASSERT_EQ(again.starts.size(), plan.starts.size());
    for (size_t i = 0; i < plan.starts.size(); ++i) {
      EXPECT_EQ(again.starts[i].job, plan.starts[i].job);
      EXPECT_EQ(again.starts[i].nodes, plan.starts[i].nodes);
    }
    ASSERT_EQ(again.reservations.size(), plan.reservations.size());
    for (size_t i = 0; i < plan.reservations.size(); ++i) {
      EXPECT_EQ(again.reservations[i].job, plan.reservations[i].job);
      EXPECT_EQ(again.reservations[i].start, plan.reservations[i].start);
      EXPECT_EQ(again.reservations[i].nodes, plan.reservations[i].nodes);
    }

    // The applier takes every start: nothing is double-booked now.
    auto report = PlanApplier().Apply(plan, *w->view, w->jobs, kPropertyNow);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_TRUE(report->refused.empty());
    reservations += plan.stats.reserved;
    starts += plan.stats.placed;
    held_back += plan.stats.held_back;
    if (HasFailure()) {
      break;  // one seed's trace is enough
    }
  }
  // The workloads exercise what they are meant to.
  EXPECT_GT(reservations, 200);
  EXPECT_GT(starts, 200);
  EXPECT_GT(held_back, 20);
  RecordProperty("reservations", reservations);
}

// The model's rounding, written again: the first multiple of `res` at or after `t`.
absl::Time Grid(absl::Time t, absl::Duration res) {
  if (t == absl::InfiniteFuture()) {
    return t;
  }
  const absl::Duration rem = (t - absl::UnixEpoch()) % res;
  return rem == absl::ZeroDuration() ? t : t + (res - rem);
}

// A held share over [start, release) as the pass models it (releases on the grid).
struct Hold {
  absl::Time start;
  absl::Time release;
  core::NodeShare share;
  bool exclusive;
};

// The capacity every node has over [from, until), computed from scratch: each node at `from`,
// then the least it has at any moment of the window.
placement::CapacityView NaiveWindow(const placement::CapacityView& idle,
                                    const std::vector<Hold>& holds, absl::Time from,
                                    absl::Time until) {
  std::vector<placement::NodeCapacity> nodes(idle.nodes().begin(), idle.nodes().end());
  for (size_t n = 0; n < nodes.size(); ++n) {
    std::vector<absl::Time> moments = {from};
    for (const Hold& h : holds) {
      if (h.share.node.value() == static_cast<int32_t>(n)) {
        for (absl::Time t : {h.start, h.release}) {
          if (t > from && t < until) {
            moments.push_back(t);
          }
        }
      }
    }
    const placement::NodeCapacity base = nodes[n];
    placement::NodeCapacity least = base;
    bool first = true;
    for (absl::Time t : moments) {
      placement::NodeCapacity at = base;
      for (const Hold& h : holds) {
        if (h.share.node.value() != static_cast<int32_t>(n) || !(h.start <= t && t < h.release)) {
          continue;
        }
        at.free_gpus -= h.share.gpus;
        at.free_cpus -= h.share.cpus;
        at.free_mem_mib -= h.share.mem_mib;
        ++at.jobs;
        at.exclusive = at.exclusive || h.exclusive;
      }
      if (first) {
        least = at;
        first = false;
      }
      least.free_gpus = std::min(least.free_gpus, at.free_gpus);
      least.free_cpus = std::min(least.free_cpus, at.free_cpus);
      least.free_mem_mib = std::min(least.free_mem_mib, at.free_mem_mib);
      least.jobs = std::max(least.jobs, at.jobs);
      least.exclusive = least.exclusive || at.exclusive;
    }
    nodes[n] = least;
  }
  absl::StatusOr<placement::CapacityView> view =
      placement::CapacityView::Build(idle.topology(), {"gpu", "debug"}, {"h100", "a100"}, nodes);
  EXPECT_TRUE(view.ok()) << view.status();
  return *std::move(view);
}

// Against a from-scratch model: every reservation is the policy's placement at the earliest
// candidate time, given the running jobs and what the jobs before it started or reserved.
TEST(BackfillPropertyTest, ReservationsAreTheEarliestPlacementsOfTheModel) {
  auto policy = *placement::MakePlacementPolicy("placement/canopy");
  int checked = 0;
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE(absl::StrCat("seed ", seed));
    std::unique_ptr<Workload> w = MakeWorkload(seed);
    const std::vector<const core::Job*> pending = w->jobs.Pending();
    const Plan plan = RunPass(*w->view, w->running, pending, kPropertyNow, *policy, w->options);
    const absl::Duration res = w->options.backfill.resolution;
    // The cluster with nothing running, and every job as a hold: running jobs from always until
    // their end, rounded up as the model does.
    placement::CapacityView idle = *w->view;
    std::vector<Hold> holds;
    for (const RunningJob& r : w->running) {
      std::vector<placement::NodeUse> uses;
      for (const core::NodeShare& sh : r.nodes) {
        uses.push_back({sh.node, sh.gpus, sh.cpus, sh.mem_mib});
        holds.push_back({absl::InfinitePast(), Grid(r.end, res), sh, r.exclusive});
      }
      ASSERT_TRUE(idle.ApplyJob(uses, r.exclusive, /*start=*/false).ok());
    }
    size_t next_start = 0, next_reservation = 0;
    for (const core::Job* job : pending) {
      const core::Job& j = *job;
      if (next_start < plan.starts.size() && plan.starts[next_start].job == j.id) {
        for (const core::NodeShare& sh : plan.starts[next_start].nodes) {
          holds.push_back(
              {kPropertyNow, Grid(kPropertyNow + j.time_limit, res), sh, j.resources.exclusive});
        }
        ++next_start;
        continue;
      }
      if (next_reservation >= plan.reservations.size() ||
          plan.reservations[next_reservation].job != j.id) {
        continue;
      }
      const PlannedReservation& r = plan.reservations[next_reservation++];
      std::vector<absl::Time> candidates;
      for (const Hold& h : holds) {
        candidates.push_back(h.release);
      }
      if (j.resources.max_switches > 0) {
        candidates.push_back(Grid(j.eligible_time + j.resources.max_switch_wait, res));
      }
      candidates.push_back(r.start);
      std::sort(candidates.begin(), candidates.end());
      const placement::PlacementRequest request(j.resources, j.eligible_time);
      for (absl::Time t : candidates) {
        if (t <= kPropertyNow || t > r.start) {
          continue;
        }
        const placement::CapacityView window =
            NaiveWindow(idle, holds, t, Grid(t + j.time_limit, res));
        const placement::PlacementResult got = policy->Place(window, request, t);
        if (t < r.start) {
          EXPECT_FALSE(got.placed())
              << "job " << j.id.value() << " reserved at +"
              << absl::FormatDuration(r.start - kPropertyNow) << " could start at +"
              << absl::FormatDuration(t - kPropertyNow);
          continue;
        }
        ASSERT_TRUE(got.placed()) << "job " << j.id.value();
        std::vector<core::NodeShare> nodes;
        for (const placement::NodeAssignment& a : got.nodes) {
          nodes.push_back(
              {a.node, a.gpus, j.resources.cpus_per_node, j.resources.mem_per_node_mib, {}});
        }
        EXPECT_EQ(nodes, r.nodes) << "job " << j.id.value();
        ++checked;
      }
      for (const core::NodeShare& sh : r.nodes) {
        holds.push_back({r.start, Grid(r.start + j.time_limit, res), sh, r.exclusive});
      }
    }
    if (HasFailure()) {
      break;
    }
  }
  EXPECT_GT(checked, 200);
}

}  // namespace
}  // namespace canopy::plan
