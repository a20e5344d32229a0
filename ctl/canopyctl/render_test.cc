// canopyctl's own output, pinned byte for byte (golden text): a small cluster of 4 nodes under
// two leaves and one spine, and two jobs.
#include "ctl/canopyctl/render.h"

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"

namespace canopy::ctl::canopyctl {
namespace {

constexpr int64_t kNow = 1796204622;  // 2026-12-02T09:43:42Z

canopy::v1::ListNodesResponse Nodes() {
  canopy::v1::ListNodesResponse nodes;
  for (int i = 1; i <= 4; ++i) {
    canopy::v1::Node* n = nodes.add_nodes();
    n->set_name(absl::StrFormat("gpu%03d", i));
    n->set_cpus(64);
    n->set_alloc_cpus(i == 1 ? 16 : 0);
    n->set_real_memory_mib(i == 4 ? 512 : 1024 * 1024);
    n->set_gpus_configured(8);
    n->set_gpu_type("h100");
    n->set_alloc_gpus(i == 1 ? 4 : 0);
    n->set_slurm_state(i == 1 ? "mix" : (i == 4 ? "drain" : "idle"));
    n->add_switch_path("spine");
    n->add_switch_path(i <= 2 ? "leaf1" : "leaf2");
    if (i == 4) {
      n->set_reason("bad fan");
      n->set_reason_user("root");
      for (int g = 0; g < 8; ++g) {
        n->add_gpus()->set_health(g == 0 ? canopy::v1::GPU_HEALTH_UNHEALTHY
                                         : canopy::v1::GPU_HEALTH_HEALTHY);
      }
    }
  }
  return nodes;
}

canopy::v1::GetTopologyResponse Topology() {
  canopy::v1::GetTopologyResponse topo;
  canopy::v1::Switch* spine = topo.add_switches();
  spine->set_name("spine");
  spine->set_level(1);
  spine->add_child_switches("leaf1");
  spine->add_child_switches("leaf2");
  spine->set_total_nodes(4);
  spine->set_idle_nodes(2);
  spine->set_down_nodes(1);
  spine->set_total_gpus(32);
  spine->set_free_gpus(20);
  spine->set_used_gpus(4);
  spine->set_down_gpus(8);
  spine->add_job_ids(7);
  for (int leaf = 1; leaf <= 2; ++leaf) {
    canopy::v1::Switch* s = topo.add_switches();
    s->set_name(absl::StrFormat("leaf%d", leaf));
    s->set_parent("spine");
    s->add_nodes(absl::StrFormat("gpu%03d", leaf * 2 - 1));
    s->add_nodes(absl::StrFormat("gpu%03d", leaf * 2));
    s->set_total_nodes(2);
    s->set_total_gpus(16);
  }
  topo.add_unswitched_nodes("cpu1");
  return topo;
}

canopy::v1::ListJobsResponse Jobs() {
  canopy::v1::ListJobsResponse jobs;
  jobs.mutable_server_time()->set_seconds(kNow);
  canopy::v1::Job* running = jobs.add_jobs();
  running->set_job_id(7);
  running->mutable_spec()->set_name("train");
  running->mutable_spec()->set_gpus_per_node(4);
  running->set_user_name("alice");
  running->set_state(canopy::v1::JOB_STATE_RUNNING);
  running->set_partition("gpu");
  running->set_priority(100);
  running->add_nodes("gpu001");
  running->add_leaf_switches("leaf1");
  running->mutable_submit_time()->set_seconds(kNow - 600);
  running->mutable_start_time()->set_seconds(kNow - 65);
  running->mutable_time_limit()->set_seconds(3600);
  running->set_placement_explanation("packed under leaf1");
  canopy::v1::Job* pending = jobs.add_jobs();
  pending->set_job_id(9);
  pending->set_array_job_id(8);
  pending->set_array_task_id(1);
  pending->mutable_spec()->set_name("sweep");
  pending->set_user_name("bob");
  pending->set_state(canopy::v1::JOB_STATE_PENDING);
  pending->set_reason("Resources");
  return jobs;
}

TEST(CanopyctlRenderTest, NodesTable) {
  EXPECT_EQ(RenderNodesTable(Nodes()),
            "NODE    STATE  CPUS   MEMORY  GPUS(used/total)  LEAF   REASON\n"
            "gpu001  mix    16/64  1.0T    4/8 h100          leaf1  \n"
            "gpu002  idle   0/64   1.0T    0/8 h100          leaf1  \n"
            "gpu003  idle   0/64   1.0T    0/8 h100          leaf2  \n"
            "gpu004  drain  0/64   512M    0/8 h100 (1 bad)  leaf2  bad fan [root]\n");
}

TEST(CanopyctlRenderTest, TopologyTree) {
  EXPECT_EQ(RenderTopologyTree(Topology(), Nodes()),
            "spine (level 1): 4 nodes, 2 idle, 1 down; GPUs 32: 20 free, 4 used, 8 down; jobs 7\n"
            "├── leaf1 (level 0): 2 nodes, 0 idle, 0 down; GPUs 16: 0 free, 0 used, 0 down\n"
            "│       idle gpu002  mix gpu001\n"
            "└── leaf2 (level 0): 2 nodes, 0 idle, 0 down; GPUs 16: 0 free, 0 used, 0 down\n"
            "        drain gpu004  idle gpu003\n"
            "under no switch: cpu1\n");
  EXPECT_EQ(RenderTopologyTree({}, Nodes()), "no switches configured (flat cluster): 4 nodes\n");
}

TEST(CanopyctlRenderTest, JobsTableAndDetails) {
  EXPECT_EQ(RenderJobsTable(Jobs()),
            "JOBID  NAME   USER   STATE    NODES  LEAVES  TIME  NODELIST(REASON)\n"
            "7      train  alice  RUNNING  1      leaf1   1:05  gpu001\n"
            "8_1    sweep  bob    PENDING  1      -       0:00  (Resources)\n");
  EXPECT_EQ(RenderJobDetails(Jobs().jobs(0), absl::FromUnixSeconds(kNow), absl::UTCTimeZone()),
            "Job 7 (train) of alice\n"
            "  State:      RUNNING  Reason: None\n"
            "  ExitCode:   0:0\n"
            "  Partition:  gpu  Priority: 100\n"
            "  Nodes:      1 gpu001\n"
            "  GPUs/node:  gres:gpu:4\n"
            "  Leaves:     leaf1\n"
            "  Placement:  packed under leaf1\n"
            "  Submitted:  2026-12-02T09:33:42\n"
            "  Started:    2026-12-02T09:42:37\n"
            "  Ended:      -\n"
            "  RunTime:    1:05  TimeLimit: 1:00:00\n");
}

TEST(CanopyctlRenderTest, ShortAnswers) {
  canopy::v1::UpdateNodeResponse updated;
  updated.add_updated_nodes("gpu001");
  updated.add_updated_nodes("gpu002");
  EXPECT_EQ(RenderNodeUpdate("drain", updated), "drain: gpu[001-002]\n");
  canopy::v1::PingResponse ping;
  ping.set_version("0.9");
  ping.set_hostname("ctl1");
  ping.set_cluster_name("c");
  ping.set_uptime_seconds(42);
  EXPECT_EQ(RenderPing(ping, "unix:/run/canopy.sock"),
            "canopyd 0.9 on ctl1 (cluster c) is UP, uptime 42s, at unix:/run/canopy.sock\n");
  canopy::v1::WhoAmIResponse me;
  me.set_user_name("alice");
  me.set_user_id(1000);
  me.set_authenticated(true);
  EXPECT_EQ(RenderWhoAmI(me), "alice (uid 1000), authenticated by the unix socket\n");
}

}  // namespace
}  // namespace canopy::ctl::canopyctl
