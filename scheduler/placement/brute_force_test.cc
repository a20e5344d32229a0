// Brute-force checker: on small random topologies and states (fixed, logged seeds), the canopy
// policy never uses more leaf switches (units) than the optimum, and every policy returns valid
// placements.
//
// The optimum is the one the policy promises (docs/design/placement.md): among the domains of
// the lowest level that can hold the job (within --switches=K when K applies), the fewest units
// any subset of their units can cover the job with. It is computed here by enumerating subsets,
// with an eligibility check written independently of the policy's.
#include <algorithm>
#include <bit>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "scheduler/placement/canopy_policy.h"
#include "scheduler/placement/first_fit_policy.h"
#include "scheduler/placement/placement_test_util.h"
#include "scheduler/placement/slurm_tree_policy.h"

namespace canopy::placement {
namespace {

using core::NodeId;

using testing::kT0;

struct RandomCluster {
  int nodes = 0;
  std::string conf;
};

std::string NodeList(int first, int count) {
  std::vector<std::string> names;
  for (int i = first; i < first + count; ++i) {
    names.push_back(absl::StrCat("n", i));
  }
  return absl::StrJoin(names, ",");
}

// kind 0: switch tree (2 or 3 levels, sometimes several roots, sometimes a lone node);
// kind 1: blocks with BlockSizes; kind 2: a switch tree with blocks inside its leaves.
RandomCluster MakeCluster(std::mt19937& rng, int kind) {
  RandomCluster c;
  int next = 1;
  if (kind == 1) {
    const int blocks = 2 + static_cast<int>(rng() % 7);
    int smallest = 100;
    for (int b = 1; b <= blocks; ++b) {
      int size = 1 + static_cast<int>(rng() % 4);
      smallest = std::min(smallest, size);
      absl::StrAppend(&c.conf, "BlockName=b", b, " Nodes=", NodeList(next, size), "\n");
      next += size;
    }
    std::vector<std::string> sizes = {absl::StrCat(smallest)};
    for (int f = 2; f <= blocks && rng() % 3 != 0; f *= 2) {
      sizes.push_back(absl::StrCat(smallest * f));
    }
    absl::StrAppend(&c.conf, "BlockSizes=", absl::StrJoin(sizes, ","), "\n");
  } else {
    const bool three_levels = rng() % 2 == 0;
    const int spines = three_levels ? 1 + static_cast<int>(rng() % 3) : 1;
    const bool core = !three_levels || rng() % 4 != 0;  // else the spines are separate roots
    int leaf = 1, block = 1;
    std::vector<std::string> spine_names;
    for (int s = 1; s <= spines; ++s) {
      std::vector<std::string> leaves;
      const int n_leaves = 1 + static_cast<int>(rng() % 4);
      for (int l = 0; l < n_leaves; ++l, ++leaf) {
        const int size = 1 + static_cast<int>(rng() % 4);
        absl::StrAppend(&c.conf, "SwitchName=l", leaf, " Nodes=", NodeList(next, size), "\n");
        if (kind == 2 && size >= 2) {
          absl::StrAppend(&c.conf, "BlockName=b", block++, " Nodes=", NodeList(next, 2), "\n");
        }
        leaves.push_back(absl::StrCat("l", leaf));
        next += size;
      }
      absl::StrAppend(&c.conf, "SwitchName=s", s, " Switches=", absl::StrJoin(leaves, ","), "\n");
      spine_names.push_back(absl::StrCat("s", s));
    }
    if (three_levels && core) {
      absl::StrAppend(&c.conf, "SwitchName=core Switches=", absl::StrJoin(spine_names, ","), "\n");
    }
    if (rng() % 4 == 0) {
      ++next;  // one node under no switch
    }
  }
  c.nodes = next - 1;
  return c;
}

CapacityView RandomState(const topology::Topology& topo, std::mt19937& rng) {
  testing::ViewBuilder b(topo);
  for (int i = 0; i < topo.node_count(); ++i) {
    const std::string& name = topo.node_name(NodeId(i));
    switch (rng() % 10) {
      case 0:
      case 1:
      case 2:
        b.Busy(name);
        break;
      case 3:
        b.Use(name, 4);
        break;
      case 4:
        b.Use(name, 7);
        break;
      case 5:
        if (rng() % 2) {
          b.Down(name);
        } else {
          b.Drain(name);
        }
        break;
      default:
        break;
    }
  }
  return b.Build();
}

// Written apart from eligibility.h on purpose.
bool Eligible(const NodeCapacity& n, const PlacementRequest& r) {
  return n.up && n.healthy && !n.drained && !n.exclusive && (!r.exclusive || n.jobs == 0) &&
         n.free_gpus >= r.gpus_per_node && n.free_cpus >= r.cpus_per_node &&
         n.free_mem_mib >= r.mem_per_node_mib;
}

struct Optimum {
  int level = -1;  // lowest level with a domain that fits (within K when K applies)
  int units = -1;  // fewest units there
};

Optimum BruteForce(const CapacityView& view, const PlacementRequest& r, int max_units) {
  const DomainTree& tree = view.domains();
  std::vector<int> eligible(tree.size(), 0);
  for (int d = 0; d < tree.size(); ++d) {
    for (NodeId id : tree.nodes(d)) {
      eligible[d] += Eligible(view.node(id), r) ? 1 : 0;
    }
  }
  Optimum best;
  for (int level = 0; level <= tree.max_level() && best.level < 0; ++level) {
    for (int d : tree.at_level(level)) {
      if (eligible[d] < r.min_nodes) {
        continue;
      }
      int units = 1;
      if (tree.domain(d).unit < 0) {
        absl::Span<const int> us = tree.units_of(d);
        units = 1 << 30;
        for (uint32_t mask = 1; mask < (1u << us.size()); ++mask) {
          int sum = 0;
          for (size_t i = 0; i < us.size(); ++i) {
            if (mask & (1u << i)) {
              sum += eligible[us[i]];
            }
          }
          if (sum >= r.min_nodes) {
            units = std::min(units, std::popcount(mask));
          }
        }
      }
      if (max_units > 0 && units > max_units) {
        continue;
      }
      if (best.level < 0 || units < best.units) {
        best = {level, units};
      }
    }
  }
  return best;
}

void CheckValid(const CapacityView& view, const PlacementRequest& r, const PlacementResult& p) {
  std::set<int> seen;
  ASSERT_EQ(static_cast<int>(p.nodes.size()), r.min_nodes);
  for (const NodeAssignment& a : p.nodes) {
    EXPECT_TRUE(seen.insert(a.node.value()).second) << "node twice";
    EXPECT_TRUE(Eligible(view.node(a.node), r)) << view.topology().node_name(a.node);
    EXPECT_EQ(a.gpus, r.gpus_per_node);
  }
}

// The deepest domain holding every placed node.
int CommonDomainLevel(const CapacityView& view, const PlacementResult& p) {
  const DomainTree& tree = view.domains();
  std::vector<int> path;
  for (int d = tree.group_of(p.nodes[0].node); d >= 0; d = tree.domain(d).parent) {
    path.push_back(d);
  }
  for (int d : path) {
    bool all = true;
    for (const NodeAssignment& a : p.nodes) {
      int x = tree.group_of(a.node);
      while (x >= 0 && x != d) {
        x = tree.domain(x).parent;
      }
      all = all && x == d;
    }
    if (all) {
      return tree.domain(d).level;
    }
  }
  return -1;
}

void RunSeeds(int kind, uint32_t first_seed, int count) {
  int placed = 0, waited = 0;
  for (uint32_t seed = first_seed; seed < first_seed + static_cast<uint32_t>(count); ++seed) {
    SCOPED_TRACE(absl::StrCat("kind ", kind, " seed ", seed));
    std::mt19937 rng(seed);
    RandomCluster c = MakeCluster(rng, kind);
    auto topo = testing::MakeTopology(absl::StrCat("n[1-", c.nodes, "]"), c.conf);
    CapacityView view = RandomState(*topo, rng);
    PlacementRequest r;
    r.min_nodes = 1 + static_cast<int>(rng() % std::min(c.nodes, 10));
    r.exclusive = rng() % 2 == 0;
    r.gpus_per_node = std::vector<int>{0, 1, 4, 8}[rng() % 4];
    absl::Time now = kT0;
    if (rng() % 3 == 0) {
      r.max_switches = 1 + static_cast<int>(rng() % 2);
      r.switch_wait_start = kT0;
      r.max_switch_wait = absl::Seconds(60);
      if (rng() % 2 == 0) {
        now = kT0 + absl::Seconds(61);  // the wait has run out
      }
    }
    const bool k_applies = r.max_switches > 0 && now < kT0 + absl::Seconds(60);
    const bool small = r.min_nodes == 1 && !r.exclusive;

    PlacementResult p = CanopyPolicy().Place(view, r, now);
    Optimum any = BruteForce(view, r, 0);
    Optimum within = BruteForce(view, r, k_applies ? r.max_switches : 0);
    SCOPED_TRACE(absl::StrCat("\n", c.conf, "request ", r.min_nodes, " nodes x ", r.gpus_per_node,
                              " GPUs", r.exclusive ? " exclusive" : "", " K=", r.max_switches,
                              "\nexplanation ", p.explanation.ToString()));
    if (within.level >= 0) {
      ASSERT_EQ(p.outcome, Outcome::kPlaced) << p.detail;
      ++placed;
      CheckValid(view, r, p);
      if (!small) {
        EXPECT_EQ(p.explanation.units_used, within.units);
        EXPECT_EQ(p.explanation.min_units, within.units);
        EXPECT_EQ(CommonDomainLevel(view, p), within.level);
      } else {
        EXPECT_EQ(p.explanation.units_used, 1);
      }
    } else {
      ++waited;
      EXPECT_NE(p.outcome, Outcome::kPlaced);
      if (any.level >= 0) {
        EXPECT_EQ(p.reason, PendingReason::kSwitchLimit);
      }
    }

    // The baselines: valid whenever they place; slurm_tree never beats the optimum.
    PlacementResult s = SlurmTreePolicy().Place(view, r, now);
    if (s.placed()) {
      CheckValid(view, r, s);
      if (!small && any.level >= 0) {
        EXPECT_GE(s.explanation.units_used, any.units);
      }
    } else {
      EXPECT_TRUE(any.level < 0 || k_applies) << s.detail;
    }
    PlacementResult f = FirstFitPolicy().Place(view, r, now);
    if (f.placed()) {
      CheckValid(view, r, f);
    }
  }
  // The generator must exercise both sides.
  EXPECT_GT(placed, count / 4);
  EXPECT_GT(waited, 0);
}

TEST(BruteForceTest, SwitchTrees) { RunSeeds(/*kind=*/0, /*first_seed=*/1000, /*count=*/1000); }
TEST(BruteForceTest, BlockTopologies) { RunSeeds(1, 5000, 600); }
TEST(BruteForceTest, TreesWithBlocks) { RunSeeds(2, 9000, 600); }

}  // namespace
}  // namespace canopy::placement
