// sacctmgr show qos, compared byte for byte with what Slurm 22.05 printed in
// tests/data/slurm-reference/accounting-outputs-22.05.txt where it was recorded.
#include "ctl/sacctmgr/qos_show.h"

#include "absl/strings/str_cat.h"
#include "ctl/sacctmgr/test_qos.h"
#include "gtest/gtest.h"

namespace canopy::ctl::sacctmgr {
namespace {

std::string ShowQos(const std::vector<std::string>& args,
                    const canopy::v1::ListQosResponse& answer = NormalOnly()) {
  absl::StatusOr<Invocation> inv = ParseSacctmgrArgs(args);
  EXPECT_TRUE(inv.ok()) << inv.status();
  if (!inv.ok()) {
    return "";
  }
  absl::StatusOr<std::string> text = RenderShowQos(inv->options, inv->command, answer);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.value_or("");
}

TEST(SacctmgrShowQosTest, FormatMatchesSlurm) {
  // $ sacctmgr show qos format=name,priority,maxtrespu,maxjobspu,grptres
  EXPECT_EQ(ShowQos({"show", "qos", "format=name,priority,maxtrespu,maxjobspu,grptres"}),
            "      Name   Priority     MaxTRESPU MaxJobsPU       GrpTRES \n"
            "---------- ---------- ------------- --------- ------------- \n"
            "    normal          0                                       \n");
}

// sacctmgr 22.05's default columns, with the values a fresh "normal" has.
TEST(SacctmgrShowQosTest, DefaultColumns) {
  EXPECT_EQ(ShowQos({"show", "qos"}),
            "      Name   Priority  GraceTime    Preempt   PreemptExemptTime PreemptMode "
            "                                   Flags UsageThres UsageFactor       GrpTRES "
            "  GrpTRESMins GrpTRESRunMin GrpJobs GrpSubmit     GrpWall       MaxTRES "
            "MaxTRESPerNode   MaxTRESMins     MaxWall     MaxTRESPU MaxJobsPU MaxSubmitPU "
            "    MaxTRESPA MaxJobsPA MaxSubmitPA       MinTRES \n"
            "---------- ---------- ---------- ---------- ------------------- ----------- "
            "---------------------------------------- ---------- ----------- ------------- "
            "------------- ------------- ------- --------- ----------- ------------- "
            "-------------- ------------- ----------- ------------- --------- ----------- "
            "------------- --------- ----------- ------------- \n"
            "    normal          0   00:00:00                                    cluster "
            "                                                       1.000000               "
            "                                                                        "
            "                                                                             "
            "                                                  \n");
  EXPECT_EQ(ShowQos({"-P", "show", "qos"}, ThreeQos()),
            "Name|Priority|GraceTime|Preempt|PreemptExemptTime|PreemptMode|Flags|UsageThres|"
            "UsageFactor|GrpTRES|GrpTRESMins|GrpTRESRunMins|GrpJobs|GrpSubmit|GrpWall|MaxTRES|"
            "MaxTRESPerNode|MaxTRESMins|MaxWall|MaxTRESPU|MaxJobsPU|MaxSubmitPU|MaxTRESPA|"
            "MaxJobsPA|MaxSubmitPA|MinTRES\n"
            "normal|0|00:00:00|||cluster|||1.000000|||||||||||||||||\n"
            "high|100|00:00:30|low,normal||requeue|||1.000000|gres/gpu=128|||10|||node=2,gres/"
            "gpu=8|||2-00:00:00|cpu=512,mem=1T,gres/gpu=64|4|||||\n"
            "low|0|00:00:00|||cancel|||1.000000|||||||||||||||||\n");
}

TEST(SacctmgrShowQosTest, ConditionsAndColumns) {
  EXPECT_EQ(ShowQos({"-n", "-p", "list", "qos", "High", "format=name,descr,maxwall,grpcpus,maxn"},
                    ThreeQos()),
            "high|high|2-00:00:00||2|\n");
  EXPECT_EQ(ShowQos({"-P", "-n", "show", "qos", "where", "preemptmode=cancel,cluster", "format=na"},
                    ThreeQos()),
            "normal\nlow\n");
  EXPECT_EQ(ShowQos({"-P", "show", "qos", "descriptions=nobody", "format=name"}, ThreeQos()),
            "Name\n");
  // A narrow column cuts text with '+' but never a time; legacy one-TRES columns.
  EXPECT_EQ(ShowQos({"-n", "show", "qos", "high", "format=maxtrespu%8,maxwall%4,maxcpuspu,maxjobs"},
                    ThreeQos()),
            "cpu=512+ 2-00:00:00       512       4 \n");
}

TEST(SacctmgrShowQosTest, UnknownFieldIsSacctmgrsError) {
  for (const char* format : {"format=bogus", "format=n"}) {  // Name takes at least "na"
    absl::StatusOr<Invocation> inv = ParseSacctmgrArgs({"show", "qos", format});
    ASSERT_TRUE(inv.ok());
    EXPECT_EQ(RenderShowQos(inv->options, inv->command, NormalOnly()).status().message(),
              absl::StrCat("Unknown field '", std::string(format).substr(7), "'"));
  }
}

}  // namespace
}  // namespace canopy::ctl::sacctmgr
