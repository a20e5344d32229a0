// sinfo's output compared byte for byte with what Slurm 22.05.8 printed:
// - SinfoTest: the cluster of tests/data/slurm-reference/cli-outputs-22.05.txt (64 nodes
//   gpu[001-064], gpu[001-003] mixed, one default partition "gpu"); the long outputs are read
//   from that file, the short ones copied here.
// - SinfoProbeTest: an 8-node cluster of the reference setup (setup.sh NNODES=8) after
//   `scontrol update` gave gpu002 Weight=5 and gpu003 Features=a,b, drained gpu004
//   (reason "disk bad") and downed gpu005 (reason "x"); the expected texts are what the real
//   sinfo printed for the same command lines.
#include "ctl/sinfo/render.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace canopy::ctl::sinfo {
namespace {

// The output recorded for `command` in cli-outputs-22.05.txt.
std::string ReferenceOutput(const std::string& command) {
  std::ifstream in(
      absl::StrCat(CANOPY_SOURCE_DIR, "/tests/data/slurm-reference/cli-outputs-22.05.txt"));
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  const std::string marker = absl::StrCat("$ ", command, "\n");
  size_t at = all.find(marker);
  if (at == std::string::npos) {
    return "<not in the reference>";
  }
  at = all.find('\n', at + marker.size()) + 1;  // the dashes under the command
  const size_t end = all.find("\n-----", at);
  return all.substr(at, end + 1 - at);
}

std::string FirstLines(const std::string& text, int n) {
  size_t at = 0;
  for (int i = 0; i < n && at != std::string::npos; ++i) {
    at = text.find('\n', at);
    if (at != std::string::npos) {
      ++at;
    }
  }
  return text.substr(0, at);
}

canopy::v1::Node* AddNode(canopy::v1::ListNodesResponse& nodes, canopy::v1::Partition& p, int i) {
  canopy::v1::Node* n = nodes.add_nodes();
  n->set_name(absl::StrFormat("gpu%03d", i));
  n->set_state(canopy::v1::NODE_STATE_IDLE);
  n->set_slurm_state("idle");
  n->set_slurm_state_long("idle");
  n->set_cpus(8);
  n->set_real_memory_mib(4096);
  n->set_gpus_configured(8);
  n->set_weight(1);
  n->set_boards(1);
  n->set_sockets(8);
  n->set_cores_per_socket(1);
  n->set_threads_per_core(1);
  p.add_nodes(n->name());
  return n;
}

class SinfoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    canopy::v1::Partition* p = partitions_.add_partitions();
    p->set_name("gpu");
    p->set_is_default(true);
    p->set_up(true);
    p->set_max_nodes(-1);
    p->set_priority_tier(1);
    p->set_priority_job_factor(1);
    // Jobs A-F of the reference: CPUs 7/1/1 and GPUs 7/4/8 on gpu[001-003].
    const int alloc_cpus[] = {7, 1, 1};
    const int alloc_gpus[] = {7, 4, 8};
    for (int i = 1; i <= 64; ++i) {
      canopy::v1::Node* n = AddNode(nodes_, *p, i);
      if (i <= 3) {
        n->set_state(canopy::v1::NODE_STATE_MIXED);
        n->set_slurm_state("mix");
        n->set_slurm_state_long("mixed");
        n->set_alloc_cpus(alloc_cpus[i - 1]);
        n->set_alloc_gpus(alloc_gpus[i - 1]);
      }
    }
    context_.now = absl::FromUnixSeconds(1796204622);  // 2026-12-02T09:43:42Z
  }
  SinfoOutput Run(const std::vector<std::string>& args, const SinfoEnvironment& env = {}) {
    absl::StatusOr<SinfoOptions> o = ParseSinfoArgs(args, env);
    EXPECT_TRUE(o.ok()) << o.status();
    if (!o.ok()) {
      return {};
    }
    return RenderSinfo(*o, partitions_, nodes_, context_);
  }
  std::string Render(const std::vector<std::string>& args, const SinfoEnvironment& env = {}) {
    return Run(args, env).out;
  }

  canopy::v1::ListPartitionsResponse partitions_;
  canopy::v1::ListNodesResponse nodes_;
  RenderContext context_;
};

TEST_F(SinfoTest, DefaultFormatMatchesSlurm) {
  EXPECT_EQ(Render({}),
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "gpu*         up   infinite      3    mix gpu[001-003]\n"
            "gpu*         up   infinite     61   idle gpu[004-064]\n");
  EXPECT_EQ(Render({}), ReferenceOutput("sinfo"));
}

TEST_F(SinfoTest, SummarizeMatchesSlurm) {
  EXPECT_EQ(Render({"-s"}),
            "PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T) NODELIST\n"
            "gpu*         up   infinite        3/61/0/64 gpu[001-064]\n");
  EXPECT_EQ(Render({"-s"}), ReferenceOutput("sinfo -s"));
}

TEST_F(SinfoTest, NodeLongMatchesSlurm) {
  const std::string out = Render({"-N", "-l"});
  EXPECT_EQ(out, ReferenceOutput("sinfo -N -l"));
  EXPECT_EQ(FirstLines(out, 3),
            "Wed Dec 02 09:43:42 2026\n"
            "NODELIST   NODES PARTITION       STATE CPUS    S:C:T MEMORY TMP_DISK WEIGHT AVAIL_FE "
            "REASON              \n"
            "gpu001         1      gpu*       mixed 8       8:1:1   4096        0      1   (null) "
            "none                \n");
}

TEST_F(SinfoTest, LongFormatMatchesSlurm) {
  const std::string out = Render({"-N", "-h", "-O", "NodeList,StateLong,CPUsState,Gres,GresUsed"});
  EXPECT_EQ(out, ReferenceOutput("sinfo -N -h -O NodeList,StateLong,CPUsState,Gres,GresUsed"));
  EXPECT_EQ(FirstLines(out, 1),
            "gpu001              mixed               7/1/0/8             gpu:8               "
            "gpu:7               \n");
}

TEST_F(SinfoTest, ListReasonsMatchesSlurm) {
  canopy::v1::Node* n = nodes_.mutable_nodes(63);
  n->set_drain(true);
  n->set_reason("maint_test");
  n->set_reason_user("root");
  n->mutable_reason_time()->set_seconds(1796204622);  // 2026-12-02T09:43:42Z
  n->set_slurm_state("drain");
  EXPECT_EQ(Render({"-R"}),
            "REASON               USER      TIMESTAMP           NODELIST\n"
            "maint_test           root      2026-12-02T09:43:42 gpu064\n");
  EXPECT_EQ(Render({"-R"}), ReferenceOutput("sinfo -R"));
}

TEST_F(SinfoTest, CustomFormatNoHeaderAndPartitionFilter) {
  EXPECT_EQ(Render({"-h", "-o", "%P %a %l %D %t %N"}),
            "gpu* up infinite 3 mix gpu[001-003]\n"
            "gpu* up infinite 61 idle gpu[004-064]\n");
  EXPECT_EQ(Render({"-h", "-p", "other"}), "");
  EXPECT_EQ(Render({"--noheader", "--format=%D %c %m %G"}), "64 8 4096 gpu:8\n");
}

TEST_F(SinfoTest, LayoutOfAControllerThatDoesNotReportIt) {
  // No sockets, cores or threads reported: Slurm's layout for CPUs= alone.
  canopy::v1::Node* n = nodes_.mutable_nodes(0);
  n->clear_sockets();
  n->clear_cores_per_socket();
  n->clear_threads_per_core();
  EXPECT_EQ(Render({"-h", "-n", "gpu001", "-o", "%z %X %Y %Z"}), "8:1:1 8 1 1\n");
  n->set_sockets(2);
  n->set_cores_per_socket(4);
  n->set_threads_per_core(1);
  EXPECT_EQ(Render({"-h", "-n", "gpu001", "-o", "%z %X %Y %Z"}), "2:4:1 2 4 1\n");
  // Grouped with 8:1:1 nodes, each part shows its minimum with "+".
  EXPECT_EQ(Render({"-h", "-n", "gpu[001,010]", "-o", "%z"}), "2+:1+:1\n");
}

TEST_F(SinfoTest, GresShowsTheType) {
  for (canopy::v1::Node& n : *nodes_.mutable_nodes()) {
    n.set_gpu_type("h100");
  }
  EXPECT_EQ(Render({"-h", "-o", "%G|%N", "-n", "gpu001"}), "gpu:h100:8|gpu001\n");
  EXPECT_EQ(Render({"-h", "-O", "GresUsed:0", "-n", "gpu001"}), "gpu:h100:7\n");
}

TEST_F(SinfoTest, StateSuffixes) {
  // Planned by a pending job's backfill plan: idle nodes become "planned"; mixed ones stay
  // "mix", as in Slurm 22.05 (checked with the real sinfo).
  context_.planned_nodes = {"gpu003", "gpu004"};
  // Not responding: "*" (and it wins over "-").
  nodes_.mutable_nodes(4)->set_not_responding(true);
  nodes_.mutable_nodes(5)->set_not_responding(true);
  context_.planned_nodes.insert("gpu006");
  EXPECT_EQ(Render({"-h", "-N", "-n", "gpu[002-007]", "-o", "%N %t %T"}),
            "gpu002 mix mixed\n"
            "gpu003 mix mixed\n"
            "gpu004 plnd planned\n"
            "gpu005 idle* idle*\n"
            "gpu006 idle* idle*\n"
            "gpu007 idle idle\n");
  // The filter looks at the flag, so the planned node that is not responding counts too.
  EXPECT_EQ(Render({"-h", "-t", "plnd", "-o", "%N"}), "gpu[004,006]\n");
  // Planned nodes count as idle and sort first ("-t": the flag is the highest bit).
  EXPECT_EQ(Render({"-h", "-o", "%t %D %F"}),
            "plnd 1 0/1/0/1\nidle* 2 0/2/0/2\nmix 3 3/0/0/3\nidle 58 0/58/0/58\n");
  EXPECT_EQ(Render({"-h", "-d", "-o", "%N"}), "gpu[005-006]\n");
  EXPECT_EQ(Render({"-h", "-r", "-o", "%D"}), "62\n");
}

TEST_F(SinfoTest, DrainAndDownStates) {
  canopy::v1::Node* draining = nodes_.mutable_nodes(0);  // mixed and drained
  draining->set_drain(true);
  canopy::v1::Node* drained = nodes_.mutable_nodes(9);
  drained->set_drain(true);
  canopy::v1::Node* down = nodes_.mutable_nodes(10);
  down->set_state(canopy::v1::NODE_STATE_DOWN);
  down->set_not_responding(true);
  // Drained and not responding: Slurm keeps the node drained ("drain*"), not down.
  canopy::v1::Node* gone = nodes_.mutable_nodes(11);
  gone->set_state(canopy::v1::NODE_STATE_DOWN);
  gone->set_drain(true);
  gone->set_not_responding(true);
  EXPECT_EQ(Render({"-h", "-N", "-n", "gpu[001,010-012]", "-o", "%N %t %T %O %e"}),
            "gpu001 drng draining N/A N/A\n"
            "gpu010 drain drained N/A N/A\n"
            "gpu011 down* down* N/A N/A\n"
            "gpu012 drain* drained* N/A N/A\n");
  EXPECT_EQ(Render({"-h", "-N", "-n", "gpu[001,010-012]", "-O", "NodeList:7,StateComplete:0"}),
            "gpu001 mixed+drain\n"
            "gpu010 idle+drain\n"
            "gpu011 down+not_responding\n"
            "gpu012 down+drain+not_responding\n");
  // Draining nodes count as allocated, drained and down ones as other.
  EXPECT_EQ(Render({"-h", "-o", "%F %C %A"}), "3/58/3/64 9/478/25/512 3/58\n");
  EXPECT_EQ(Render({"-h", "-t", "drain", "-o", "%N"}), "gpu[001,010,012]\n");
  EXPECT_EQ(Render({"-h", "-t", "drained", "-o", "%N"}), "gpu[010,012]\n");
  EXPECT_EQ(Render({"-h", "-t", "drng", "-o", "%N"}), "gpu001\n");
  EXPECT_EQ(Render({"-h", "-t", "alloc", "-o", "%N"}), "gpu[001-003]\n");
  EXPECT_EQ(Render({"-h", "-t", "down&no_respond", "-o", "%N"}), "gpu[011-012]\n");
  EXPECT_EQ(Render({"-h", "-t", "down&drain", "-o", "%N"}), "gpu012\n");
}

TEST_F(SinfoTest, IterateAndReservations) {
  EXPECT_EQ(Render({"-i", "5", "-s"}),
            "Wed Dec 02 09:43:42 2026\n"
            "PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T) NODELIST\n"
            "gpu*         up   infinite        3/61/0/64 gpu[001-064]\n"
            "\n");
  EXPECT_EQ(Render({"-i", "5", "-s", "-h"}),
            "gpu*         up   infinite        3/61/0/64 gpu[001-064]\n\n");
  EXPECT_EQ(Render({"-T"}), "No reservations in the system\n");
}

TEST_F(SinfoTest, EnvironmentVariables) {
  SinfoEnvironment env;
  env.sinfo_format = "%P:%D";
  EXPECT_EQ(Render({}, env), "PARTITION:NODES\ngpu*:64\n");
  // -o wins; -N and -s use their own formats.
  EXPECT_EQ(Render({"-h", "-o", "%D"}, env), "64\n");
  EXPECT_EQ(FirstLines(Render({"-N"}, env), 1), "NODELIST   NODES PARTITION STATE \n");
  env = {};
  env.sinfo_sort = "-N";
  EXPECT_EQ(FirstLines(Render({"-N", "-h", "-o", "%N"}, env), 2), "gpu064\ngpu063\n");
  EXPECT_EQ(FirstLines(Render({"-N", "-h", "-o", "%N", "-S", "N"}, env), 2), "gpu001\ngpu002\n");
  env = {};
  env.sinfo_partition = "other";
  EXPECT_EQ(Render({"-h"}, env), "");
  EXPECT_EQ(Render({"-h", "-a", "-o", "%D"}, env), "64\n");
}

// An 8-node cluster like the one the real sinfo answered for (see the file comment).
class SinfoProbeTest : public SinfoTest {
 protected:
  void SetUp() override {
    SinfoTest::SetUp();
    nodes_.clear_nodes();
    canopy::v1::Partition* p = partitions_.mutable_partitions(0);
    p->clear_nodes();
    for (int i = 1; i <= 8; ++i) {
      AddNode(nodes_, *p, i);
    }
    nodes_.mutable_nodes(1)->set_weight(5);
    nodes_.mutable_nodes(2)->add_features("a");
    nodes_.mutable_nodes(2)->add_features("b");
    canopy::v1::Node* drained = nodes_.mutable_nodes(3);
    drained->set_drain(true);
    drained->set_reason("disk bad");
    drained->set_reason_user("root");
    drained->mutable_reason_time()->set_seconds(1796309634);  // 2026-12-03T14:53:54Z
    canopy::v1::Node* down = nodes_.mutable_nodes(4);
    down->set_state(canopy::v1::NODE_STATE_DOWN);
    down->set_reason("x");
    down->set_reason_user("root");
    down->mutable_reason_time()->set_seconds(1796309634);
    context_.now = absl::FromUnixSeconds(1796309634);
    context_.uid_of = [](const std::string& name) -> std::optional<uint32_t> {
      return name == "root" ? std::optional<uint32_t>(0) : std::nullopt;
    };
  }
};

TEST_F(SinfoProbeTest, RowsSortByDecreasingState) {
  EXPECT_EQ(Render({}),
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "gpu*         up   infinite      1  drain gpu004\n"
            "gpu*         up   infinite      6   idle gpu[001-003,006-008]\n"
            "gpu*         up   infinite      1   down gpu005\n");
  EXPECT_EQ(Render({"-l"}),
            "Thu Dec 03 14:53:54 2026\n"
            "PARTITION AVAIL  TIMELIMIT   JOB_SIZE ROOT OVERSUBS     GROUPS  NODES       STATE "
            "NODELIST\n"
            "gpu*         up   infinite 1-infinite   no       NO        all      1     drained "
            "gpu004\n"
            "gpu*         up   infinite 1-infinite   no       NO        all      6        idle "
            "gpu[001-003,006-008]\n"
            "gpu*         up   infinite 1-infinite   no       NO        all      1        down "
            "gpu005\n");
  EXPECT_EQ(Render({"-s"}),
            "PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T) NODELIST\n"
            "gpu*         up   infinite          0/6/2/8 gpu[001-008]\n");
}

TEST_F(SinfoProbeTest, GroupingShowsMinimaUnlessExact) {
  EXPECT_EQ(Render({"-o", "%N %w %f %c %z %m"}),
            "NODELIST WEIGHT AVAIL_FEATURES CPUS S:C:T MEMORY\n"
            "gpu[001-002,004-008] 1+ (null) 8 8:1:1 4096\n"
            "gpu003 1 a,b 8 8:1:1 4096\n");
  EXPECT_EQ(Render({"-e", "-o", "%N %w %f %c %z %m"}),
            "NODELIST WEIGHT AVAIL_FEATURES CPUS S:C:T MEMORY\n"
            "gpu[001,004-008] 1 (null) 8 8:1:1 4096\n"
            "gpu002 5 (null) 8 8:1:1 4096\n"
            "gpu003 1 a,b 8 8:1:1 4096\n");
  EXPECT_EQ(Render({"-o", "%N %C %A %F %d %b %X %Y %Z"}),
            "NODELIST CPUS(A/I/O/T) NODES(A/I) NODES(A/I/O/T) TMP_DISK ACTIVE_FEATURES SOCKETS "
            "CORES THREADS\n"
            "gpu[001-002,004-008] 0/40/16/56 0/5 0/5/2/7 0 (null) 8 1 1\n"
            "gpu003 0/8/0/8 0/1 0/1/0/1 0 a,b 8 1 1\n");
}

TEST_F(SinfoProbeTest, ReasonsUsersAndTimes) {
  EXPECT_EQ(Render({"-o", "%N %E|%u|%U|%H|%t|%T"}),
            "NODELIST REASON|USER|USER|TIMESTAMP|STATE|STATE\n"
            "gpu004 disk bad|root|root(0)|2026-12-03T14:53:54|drain|drained\n"
            "gpu[001-003,006-008] none|Unknown|Unknown|Unknown|idle|idle\n"
            "gpu005 x|root|root(0)|2026-12-03T14:53:54|down|down\n");
  EXPECT_EQ(Render({"-R"}),
            "REASON               USER      TIMESTAMP           NODELIST\n"
            "disk bad             root      2026-12-03T14:53:54 gpu004\n"
            "x                    root      2026-12-03T14:53:54 gpu005\n");
  EXPECT_EQ(Render({"-R", "-l"}),
            "Thu Dec 03 14:53:54 2026\n"
            "REASON               USER         TIMESTAMP           STATE  NODELIST\n"
            "disk bad             root(0)      2026-12-03T14:53:54 drain  gpu004\n"
            "x                    root(0)      2026-12-03T14:53:54 down   gpu005\n");
  // "idle" includes the drained idle node.
  EXPECT_EQ(Render({"-R", "-t", "idle"}),
            "REASON               USER      TIMESTAMP           NODELIST\n"
            "disk bad             root      2026-12-03T14:53:54 gpu004\n"
            "none                 Unknown   Unknown             gpu[001-003,006-008]\n");
}

TEST_F(SinfoProbeTest, NodeOrientedFormats) {
  const std::string out = Render({"-N"});
  EXPECT_EQ(FirstLines(out, 2),
            "NODELIST   NODES PARTITION STATE \n"
            "gpu001         1      gpu* idle  \n");
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 9);
  EXPECT_EQ(Render({"-N", "-R"}),
            "NODELIST   NODES PARTITION STATE \n"
            "gpu004         1      gpu* drain \n"
            "gpu005         1      gpu* down  \n");
  EXPECT_EQ(FirstLines(Render({"-s", "-N"}), 2),
            "PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T) NODELIST\n"
            "gpu*         up   infinite          0/1/0/1 gpu001\n");
  EXPECT_EQ(Render({"-R", "-s"}),
            "PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T) NODELIST\n"
            "gpu*         up   infinite          0/0/2/2 gpu[004-005]\n");
}

TEST_F(SinfoProbeTest, PartitionFields) {
  EXPECT_EQ(Render({"-o", "%P %I %p %M %L %g %h %r %s %S %B %V"}),
            "PARTITION PRIO_JOB_FACTOR PRIO_TIER PREEMPT_MODE DEFAULTTIME GROUPS OVERSUBSCRIBE "
            "ROOT JOB_SIZE ALLOCNODES MAX_CPUS_PER_NODE CLUSTER\n"
            "gpu* 1 1 OFF n/a all NO no 1-infinite all UNLIMITED N/A\n");
  // No state in the format: one row.
  EXPECT_EQ(Render({"-o", "%.3P|%3N|%.20N|"}),
            "PAR|NOD|            NODELIST|\n"
            "gp*|gpu|        gpu[001-008]|\n");
  EXPECT_EQ(Render({"-o", "%P", "-n", "gpu001"}), "PARTITION\ngpu*\n");
  EXPECT_EQ(Render({"-o", "X"}), "X\nX\n");
}

TEST_F(SinfoProbeTest, EmptyPartitionRows) {
  // A filter that leaves a partition without nodes still shows the partition.
  EXPECT_EQ(Render({"-t", "plnd"}),
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "gpu*         up   infinite      0    n/a \n");
  EXPECT_EQ(Render({"-t", "plnd", "-o",
                    "%P|%c|%m|%C|%F|%A|%E|%G|%z|%w|%f|%b|%T|%u|%U|%H|%e|%O|%d|"
                    "%v|%X|%Y|%Z|%n|%o|%s"}),
            "PARTITION|CPUS|MEMORY|CPUS(A/I/O/T)|NODES(A/I/O/T)|NODES(A/I)|REASON|GRES|S:C:T|"
            "WEIGHT|AVAIL_FEATURES|ACTIVE_FEATURES|STATE|USER|USER|TIMESTAMP|FREE_MEM|CPU_LOAD|"
            "TMP_DISK|VERSION|SOCKETS|CORES|THREADS|HOSTNAMES|NODE_ADDR|JOB_SIZE\n"
            "gpu*|0|0|0/0/0/0|0/0/0/0|0/0|none|(null)|0:0:0|0|(null)|(null)|n/a|root|root(0)|"
            "Unknown|0|0.00|0|N/A|0|0|0|||1-infinite\n");
  // Without a partition field there is no such row.
  EXPECT_EQ(Render({"-t", "plnd", "-O", "GresUsed,AllocMem"}),
            "GRES_USED           ALLOCMEM            \n");
  EXPECT_EQ(Render({"-n", "gpu[1-"}),
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "gpu*         up   infinite      0    n/a \n");
}

TEST_F(SinfoProbeTest, InvalidFieldsWarnAndPrintWhatSlurmPrints) {
  SinfoOutput r = Run({"-o", "%5Q|%N"});
  EXPECT_EQ(r.err, "Invalid node format specification: Q\n");
  EXPECT_EQ(r.out, "%5Q|NODELIST\n%5Q|gpu[001-008]\n");
  r = Run({"-o", "%#P|%N", "-h", "-t", "down"});
  EXPECT_EQ(r.err, "Invalid node format specification: #\n");
  EXPECT_EQ(r.out, "%#P|gpu005\n");
  r = Run({"-O", "NodeList:5,bogus:5,Nodes"});
  EXPECT_EQ(r.err, "sinfo: error: Invalid job format specification: bogus\n");
  EXPECT_EQ(r.out,
            "NODELNODES               \n"
            "gpu[08                   \n");
  r = Run({"-O", "Reservation", "-h"});
  EXPECT_EQ(r.err, "sinfo: error: Invalid job format specification: Reservation\n");
  EXPECT_EQ(r.out, "\n");
}

TEST_F(SinfoProbeTest, LongFormatWidthsAndSuffixes) {
  EXPECT_EQ(Render({"-O", "NodeList:.15|x,Nodes:3"}),
            "       NODELIST|xNOD\n"
            "   gpu[001-008]|x8  \n");
  EXPECT_EQ(Render({"-O", "nodelist:"}), "NODELIST\ngpu[001-008]\n");
  EXPECT_EQ(Render({"-O", "AllocMem,Comment,Extra,GresUsed,Port,StateComplete", "-n", "gpu004"}),
            "ALLOCMEM            COMMENT             EXTRA               GRES_USED           "
            "PORT                STATECOMPLETE       \n"
            "0                   (null)              (null)              gpu:0               "
            "0                   idle+drain          \n");
  EXPECT_EQ(Render({"-O",
                    "Features_act,Cluster,PartitionName,MaxCPUsPerNode,NodeAI,Share,PriorityTier,"
                    "PriorityJobFactor,PreemptMode,DefaultTime,Time,UserLong,TimeStamp",
                    "-n", "gpu004"}),
            "ACTIVE_FEATURES     CLUSTER             PARTITION           MAX_CPUS_PER_NODE   "
            "NODES(A/I)          OVERSUBSCRIBE       PRIO_TIER           PRIO_JOB_FACTOR     "
            "PREEMPT_MODE        DEFAULTTIME         TIMELIMIT           USER                "
            "TIMESTAMP           \n"
            "(null)              N/A                 gpu                 UNLIMITED           "
            "0/0                 NO                  1                   1                   "
            "OFF                 n/a                 infinite            root(0)             "
            "2026-12-03T14:53:54 \n");
}

TEST_F(SinfoProbeTest, AllFields) {
  const std::string header = FirstLines(Render({"-o", "%all"}), 1);
  EXPECT_EQ(
      header,
      "AVAIL|ACTIVE_FEATURES|CPUS|TMP_DISK|FREE_MEM|AVAIL_FEATURES|GROUPS|OVERSUBSCRIBE|"
      "TIMELIMIT|MEMORY|HOSTNAMES|NODE_ADDR|PRIO_TIER|ROOT|JOB_SIZE|STATE|USER|VERSION|WEIGHT|"
      "S:C:T|NODES(A/I) |MAX_CPUS_PER_NODE |CPUS(A/I/O/T) |NODES |REASON |NODES(A/I/O/T) "
      "|GRES |TIMESTAMP |PRIO_JOB_FACTOR |DEFAULTTIME |PREEMPT_MODE |NODELIST |CPU_LOAD "
      "|PARTITION |PARTITION |ALLOCNODES |STATE |USER |CLUSTER |SOCKETS |CORES |THREADS \n");
  EXPECT_EQ(FirstLines(Render({"-O", "All"}), 1), header);
}

TEST_F(SinfoProbeTest, HostNamesSplitRows) {
  // Canopy's host names are the node names, all different (in the reference cluster every
  // node is "localhost", and Slurm puts them on one line).
  EXPECT_EQ(Render({"-h", "-t", "idle", "-o", "%n %o %D"}),
            "gpu004 gpu004 1\ngpu001 gpu001 1\ngpu002 gpu002 1\ngpu003 gpu003 1\n"
            "gpu006 gpu006 1\ngpu007 gpu007 1\ngpu008 gpu008 1\n");
}

TEST_F(SinfoProbeTest, SortKeys) {
  EXPECT_EQ(Render({"-h", "-o", "%t %D", "-S", "t"}), "down 1\nidle 6\ndrain 1\n");
  EXPECT_EQ(Render({"-h", "-o", "%t %D", "-S", "-D"}), "idle 6\ndrain 1\ndown 1\n");
  EXPECT_EQ(Render({"-h", "-o", "%N %w", "-e", "-S", "-w,N"}), "gpu002 5\ngpu[001,003-008] 1\n");
  // Letters sinfo cannot sort by are ignored: the rows stay as grouped (the default sort is
  // replaced, not extended).
  EXPECT_EQ(Render({"-h", "-o", "%t", "-S", "Q"}), "idle\ndrain\ndown\n");
}

// The probe cluster after `scontrol create partition` added "longpartitionname"
// (gpu[001-004], MaxTime=30, DefaultTime=10, MaxNodes=2, PriorityTier=5) and an empty, down
// partition "empty", with gpu005 back to idle.
class SinfoPartitionsTest : public SinfoProbeTest {
 protected:
  void SetUp() override {
    SinfoProbeTest::SetUp();
    canopy::v1::Node* back = nodes_.mutable_nodes(4);
    back->set_state(canopy::v1::NODE_STATE_IDLE);
    back->clear_reason();
    back->clear_reason_user();
    back->clear_reason_time();
    canopy::v1::Partition* lp = partitions_.add_partitions();
    lp->set_name("longpartitionname");
    lp->set_up(true);
    lp->mutable_max_time()->set_seconds(30 * 60);
    lp->mutable_default_time()->set_seconds(10 * 60);
    lp->set_max_nodes(2);
    lp->set_priority_tier(5);
    lp->set_priority_job_factor(1);
    for (int i = 1; i <= 4; ++i) {
      lp->add_nodes(absl::StrFormat("gpu%03d", i));
    }
    canopy::v1::Partition* empty = partitions_.add_partitions();
    empty->set_name("empty");
    empty->set_max_nodes(-1);
    empty->set_priority_tier(1);
    empty->set_priority_job_factor(1);
  }
};

TEST_F(SinfoPartitionsTest, EveryPartitionHasItsRows) {
  EXPECT_EQ(Render({}),
            "PARTITION         AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "gpu*                 up   infinite      1  drain gpu004\n"
            "gpu*                 up   infinite      7   idle gpu[001-003,005-008]\n"
            "longpartitionname    up      30:00      1  drain gpu004\n"
            "longpartitionname    up      30:00      3   idle gpu[001-003]\n"
            "empty              down   infinite      0    n/a \n");
  EXPECT_EQ(Render({"-s"}),
            "PARTITION         AVAIL  TIMELIMIT   NODES(A/I/O/T) NODELIST\n"
            "gpu*                 up   infinite          0/7/1/8 gpu[001-008]\n"
            "longpartitionname    up      30:00          0/3/1/4 gpu[001-004]\n"
            "empty              down   infinite          0/0/0/0 \n");
  EXPECT_EQ(Render({"-o", "%P %l %L %s %p %a"}),
            "PARTITION TIMELIMIT DEFAULTTIME JOB_SIZE PRIO_TIER AVAIL\n"
            "gpu* infinite n/a 1-infinite 1 up\n"
            "longpartitionname 30:00 10:00 1-2 5 up\n"
            "empty infinite n/a 1-infinite 1 down\n");
  EXPECT_EQ(Render({"-p", "empty"}),
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "empty      down   infinite      0    n/a \n");
  EXPECT_EQ(Render({"-h", "-S", "P", "-o", "%P"}), "empty\ngpu*\nlongpartitionname\n");
}

TEST_F(SinfoPartitionsTest, NodesInTwoPartitions) {
  const std::string out = Render({"-N"});
  EXPECT_EQ(FirstLines(out, 4),
            "NODELIST   NODES         PARTITION STATE \n"
            "gpu001         1              gpu* idle  \n"
            "gpu001         1 longpartitionname idle  \n"
            "gpu002         1              gpu* idle  \n");
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 13);
  EXPECT_EQ(Render({"-N", "-p", "longpartitionname", "-h"}),
            "gpu001         1 longpartitionname idle  \n"
            "gpu002         1 longpartitionname idle  \n"
            "gpu003         1 longpartitionname idle  \n"
            "gpu004         1 longpartitionname drain \n");
  // Without a partition field a node is counted once.
  EXPECT_EQ(Render({"-o", "%N %D"}), "NODELIST NODES\ngpu[001-008] 8\n");
  // -R ignores partitions: the nodes go to the first partition's row, the others stay empty.
  EXPECT_EQ(Render({"-R", "-o", "%P %N"}),
            "PARTITION NODELIST\n"
            "gpu* gpu004\n"
            "longpartitionname \n"
            "empty \n");
}

TEST_F(SinfoPartitionsTest, NodeLongExact) {
  const std::string out = Render({"-N", "-e", "-l"});
  EXPECT_EQ(out.substr(out.find('\n') + 1),
            "NODELIST   NODES         PARTITION       STATE CPUS    S:C:T MEMORY TMP_DISK WEIGHT "
            "AVAIL_FE REASON              \n"
            "gpu001         1              gpu*        idle 8       8:1:1   4096        0      1   "
            "(null) none                \n"
            "gpu001         1 longpartitionname        idle 8       8:1:1   4096        0      1   "
            "(null) none                \n"
            "gpu002         1              gpu*        idle 8       8:1:1   4096        0      5   "
            "(null) none                \n"
            "gpu002         1 longpartitionname        idle 8       8:1:1   4096        0      5   "
            "(null) none                \n"
            "gpu003         1              gpu*        idle 8       8:1:1   4096        0      1   "
            "   a,b none                \n"
            "gpu003         1 longpartitionname        idle 8       8:1:1   4096        0      1   "
            "   a,b none                \n"
            "gpu004         1              gpu*     drained 8       8:1:1   4096        0      1   "
            "(null) disk bad            \n"
            "gpu004         1 longpartitionname     drained 8       8:1:1   4096        0      1   "
            "(null) disk bad            \n"
            "gpu005         1              gpu*        idle 8       8:1:1   4096        0      1   "
            "(null) none                \n"
            "gpu006         1              gpu*        idle 8       8:1:1   4096        0      1   "
            "(null) none                \n"
            "gpu007         1              gpu*        idle 8       8:1:1   4096        0      1   "
            "(null) none                \n"
            "gpu008         1              gpu*        idle 8       8:1:1   4096        0      1   "
            "(null) none                \n");
}

TEST_F(SinfoPartitionsTest, LongFormatCutsValues) {
  EXPECT_EQ(Render({"-O", "Partition:5,PartitionName:.5,Available:3,Time:.4,Size,Nodes:2"}),
            "PARTIPARTIAVATIMEJOB_SIZE            NO\n"
            "gpu*   gpuup infi1-infinite          8 \n"
            "longplongpup 30:01-2                 4 \n"
            "emptyemptydowinfi1-infinite          0 \n");
}

TEST(SinfoScaleTest, LargeClusterGroupsAndListsEveryNode) {
  // 16,384 nodes, every 7th mixed: grouping and -N stay linear enough to answer at once.
  canopy::v1::ListPartitionsResponse partitions;
  canopy::v1::ListNodesResponse nodes;
  canopy::v1::Partition* p = partitions.add_partitions();
  p->set_name("gpu");
  p->set_is_default(true);
  p->set_up(true);
  for (int i = 1; i <= 16384; ++i) {
    canopy::v1::Node* n = AddNode(nodes, *p, i);
    n->set_name(absl::StrFormat("n%05d", i));
    p->set_nodes(i - 1, n->name());
    if (i % 7 == 0) {
      n->set_state(canopy::v1::NODE_STATE_MIXED);
      n->set_alloc_cpus(1);
    }
  }
  RenderContext context;
  absl::StatusOr<SinfoOptions> o = ParseSinfoArgs({"-h"});
  ASSERT_TRUE(o.ok());
  const std::string grouped = RenderSinfo(*o, partitions, nodes, context).out;
  EXPECT_EQ(std::count(grouped.begin(), grouped.end(), '\n'), 2);
  EXPECT_NE(grouped.find(" 2340    mix "), std::string::npos) << grouped.substr(0, 200);
  o = ParseSinfoArgs({"-h", "-N"});
  ASSERT_TRUE(o.ok());
  const std::string listed = RenderSinfo(*o, partitions, nodes, context).out;
  EXPECT_EQ(std::count(listed.begin(), listed.end(), '\n'), 16384);
  EXPECT_EQ(FirstLines(listed, 1), "n00001         1      gpu* idle  \n");
}

}  // namespace
}  // namespace canopy::ctl::sinfo
