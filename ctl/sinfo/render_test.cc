// sinfo's output for the cluster state of tests/data/slurm-reference/cli-outputs-22.05.txt
// (64 nodes gpu[001-064], gpu[001-003] mixed, the rest idle, one default partition "gpu"),
// compared with what Slurm 22.05 printed there.
#include "ctl/sinfo/render.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"

namespace canopy::ctl::sinfo {
namespace {

class SinfoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    canopy::v1::Partition* p = partitions_.add_partitions();
    p->set_name("gpu");
    p->set_is_default(true);
    p->set_up(true);
    for (int i = 1; i <= 64; ++i) {
      canopy::v1::Node* n = nodes_.add_nodes();
      n->set_name(absl::StrFormat("gpu%03d", i));
      n->set_cpus(8);
      n->set_real_memory_mib(4096);
      n->set_gpus_configured(8);
      n->set_slurm_state(i <= 3 ? "mix" : "idle");
      n->set_slurm_state_long(i <= 3 ? "mixed" : "idle");
      p->add_nodes(n->name());
    }
  }
  std::string Render(const std::vector<std::string>& args) {
    absl::StatusOr<SinfoOptions> o = ParseSinfoArgs(args);
    EXPECT_TRUE(o.ok()) << o.status();
    return RenderSinfo(*o, partitions_, nodes_, absl::UTCTimeZone());
  }

  canopy::v1::ListPartitionsResponse partitions_;
  canopy::v1::ListNodesResponse nodes_;
};

TEST_F(SinfoTest, DefaultFormatMatchesSlurm) {
  EXPECT_EQ(Render({}),
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "gpu*         up   infinite      3    mix gpu[001-003]\n"
            "gpu*         up   infinite     61   idle gpu[004-064]\n");
}

TEST_F(SinfoTest, SummarizeMatchesSlurm) {
  EXPECT_EQ(Render({"-s"}),
            "PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T) NODELIST\n"
            "gpu*         up   infinite        3/61/0/64 gpu[001-064]\n");
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
}

TEST_F(SinfoTest, CustomFormatNoHeaderAndPartitionFilter) {
  EXPECT_EQ(Render({"-h", "-o", "%P %a %l %D %t %N"}),
            "gpu* up infinite 3 mix gpu[001-003]\n"
            "gpu* up infinite 61 idle gpu[004-064]\n");
  EXPECT_EQ(Render({"-h", "-p", "other"}), "");
  EXPECT_EQ(Render({"--noheader", "--format=%D %c %m %G"}), "64 8 4096 gpu:8\n");
}

TEST_F(SinfoTest, NodeOrientedListsEveryNode) {
  // Column widths of -N are not pinned against Slurm yet: check content, one line per node.
  const std::string out = Render({"-N", "-h"});
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 64);
  const std::string first = out.substr(0, out.find('\n'));
  EXPECT_EQ(first.rfind("gpu001 ", 0), 0u) << first;
  EXPECT_NE(first.find(" 1 gpu* "), std::string::npos) << first;
  EXPECT_NE(first.find(" mix"), std::string::npos) << first;
}

}  // namespace
}  // namespace canopy::ctl::sinfo
