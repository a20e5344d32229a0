// sprio's output for the pending jobs 1220 and 1221 of tests/data/slurm-reference/accounting-
// outputs-22.05.txt (weights Age=1000 Fairshare=1000 JobSize=1000), compared byte for byte with
// what Slurm 22.05 printed there.
#include "ctl/sprio/render.h"

#include <sstream>

#include "ctl/sprio/sprio.h"
#include "gtest/gtest.h"

namespace canopy::ctl::sprio {
namespace {

class SprioRenderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    answer_.set_multifactor(true);
    answer_.mutable_weights()->set_age(1000);
    answer_.mutable_weights()->set_fairshare(1000);
    answer_.mutable_weights()->set_job_size(1000);
    Add(1220, "vision", 1562, 0, 1000, 562);
    Add(1221, "nlp", 1035, 0, 1000, 35);
  }

  canopy::v1::JobPriority* Add(uint32_t id, const std::string& account, uint32_t priority,
                               uint32_t age, uint32_t fairshare, uint32_t job_size) {
    canopy::v1::JobPriority* j = answer_.add_jobs();
    j->set_job_id(id);
    j->set_partition("gpu");
    j->set_user("root");
    j->set_account(account);
    j->set_priority(priority);
    j->set_age(age);
    j->set_fairshare(fairshare);
    j->set_job_size(job_size);
    j->set_qos_name("normal");
    return j;
  }

  SprioOutput Render(const std::vector<std::string>& args) {
    absl::StatusOr<SprioOptions> o = ParseSprioArgs(args);
    EXPECT_TRUE(o.ok()) << o.status();
    return RenderSprio(*o, answer_);
  }

  canopy::v1::ListPrioritiesResponse answer_;
};

TEST_F(SprioRenderTest, DefaultMatchesSlurm) {
  // $ sprio
  const SprioOutput r = Render({});
  EXPECT_EQ(r.out,
            "          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE    JOBSIZE\n"
            "           1220 gpu             1562          0          0       1000        562\n"
            "           1221 gpu             1035          0          0       1000         35\n");
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.exit_code, 0);
}

TEST_F(SprioRenderTest, LongMatchesSlurm) {
  // $ sprio -l
  EXPECT_EQ(Render({"-l"}).out,
            "          JOBID PARTITION     USER   PRIORITY       SITE        AGE      ASSOC  "
            "FAIRSHARE    JOBSIZE  PARTITION        QOS        NICE                 TRES\n"
            "           1220 gpu           root       1562          0          0          0  "
            "     1000        562          0          0           0                     \n"
            "           1221 gpu           root       1035          0          0          0  "
            "     1000         35          0          0           0                     \n");
}

TEST_F(SprioRenderTest, StrayOperandIsSpriosErrorWithItsUsage) {
  // $ sprio -n -o %.15i %9r %.10Y %.10A %.10F %.10J   (the format unquoted: "%9r" is an operand)
  std::ostringstream out, err;
  EXPECT_EQ(RunSprio({"-n", "-o", "%.15i", "%9r", "%.10Y", "%.10A", "%.10F", "%.10J"}, out, err),
            1);
  EXPECT_EQ(err.str(), "sprio: error: Unrecognized option: %9r\n");
  EXPECT_EQ(out.str(),
            "Usage: sprio [-j jid[s]] [-u user_name[s]] [-o format] [-p partitions]\n"
            "   [--federation] [--local] [--sibling] [--usage] [-hlnvVw]\n");
}

TEST_F(SprioRenderTest, ColumnsFollowTheNonZeroWeights) {
  answer_.mutable_weights()->set_age(0);
  answer_.mutable_weights()->set_qos(500);
  EXPECT_EQ(Render({"-h"}).out,
            "           1220 gpu             1562          0       1000        562          0\n"
            "           1221 gpu             1035          0       1000         35          0\n");
  // -u adds the USER column.
  EXPECT_EQ(Render({"-u", "root", "-j", "1221"}).out,
            "          JOBID PARTITION     USER   PRIORITY       SITE  FAIRSHARE    JOBSIZE        "
            "QOS\n"
            "           1221 gpu           root       1035          0       1000         35        "
            "  0\n");
}

TEST_F(SprioRenderTest, WeightsRow) {
  EXPECT_EQ(Render({"-w"}).out,
            "          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE    JOBSIZE\n"
            "        Weights                               1       1000       1000       1000\n");
}

TEST_F(SprioRenderTest, NormalizedValuesAreFactorsOverTheirWeights) {
  EXPECT_EQ(Render({"-n", "-h", "-j", "1220"}).out,
            "           1220 gpu       0.00000036 0.0000000  1.0000000  0.5620000 \n");
}

TEST_F(SprioRenderTest, FormatFieldsAndFilters) {
  EXPECT_EQ(Render({"-h", "-o", "%i|%o|%n|%N|%Q|%P|%B|%c|%T|", "-p", "gpu", "-u", "root"}).out,
            "1220|vision|normal|0|0|0|0|||\n1221|nlp|normal|0|0|0|0|||\n");
  EXPECT_EQ(Render({"-h", "-o", "%.3i:%-5r:", "--jobs=1221"}).out, "122:gpu  :\n");
  EXPECT_EQ(Render({"-h", "-p", "cpu"}).out, "");
}

TEST_F(SprioRenderTest, UnknownFieldIsReportedAndDroppedWithItsSuffix) {
  const SprioOutput r = Render({"-h", "-o", "%i %z(dropped) %Y"});
  EXPECT_EQ(r.err, "sprio: error: Invalid job format specification: z\n");
  EXPECT_EQ(r.out, "1220 1562\n1221 1035\n");
  EXPECT_EQ(r.exit_code, 0);
}

TEST_F(SprioRenderTest, NoMatchingJob) {
  EXPECT_EQ(Render({"-j", "99"}).out, "Unable to find jobs matching user/id(s) specified\n");
  // Only a job list triggers the message; other filters just print the header.
  EXPECT_EQ(Render({"-u", "nobody", "-o", "%i"}).out, "JOBID\n");
}

TEST_F(SprioRenderTest, BasicPriorityIsSpriosError) {
  answer_.set_multifactor(false);
  const SprioOutput r = Render({});
  EXPECT_EQ(r.err,
            "You are not running a supported priority plugin\n(priority/basic).\n"
            "Only 'priority/multifactor' is supported.\n");
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.exit_code, 1);
}

}  // namespace
}  // namespace canopy::ctl::sprio
