#include "common/slurm/sacctmgr_file.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::slurm {
namespace {

using ::testing::HasSubstr;
using Kind = FlatFileRecord::Kind;

// `sacctmgr dump anchor` of tests/data/slurm-reference/accounting-outputs-22.05.txt, with the
// comment block sacctmgr writes at the top.
constexpr char kDump[] = R"(# To edit this file start with a cluster line for the new cluster
# Cluster - 'cluster_name':MaxTRESPerJob=node=50
Cluster - 'anchor':Fairshare=1:QOS='normal'
Parent - 'root'
User - 'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1
Account - 'nlp':Description='nlp':Organization='lab':Fairshare=30
Account - 'vision':Description='vision':Organization='lab':Fairshare=70
Parent - 'nlp'
User - 'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1
Parent - 'vision'
User - 'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1
)";

TEST(FlatFileTest, ReadsSlurmsDumpAndWritesItBackLineForLine) {
  absl::StatusOr<std::vector<FlatFileRecord>> records = ParseFlatFile(kDump, "anchor.cfg");
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 9u);
  EXPECT_EQ((*records)[0].kind, Kind::kCluster);
  EXPECT_EQ((*records)[0].name, "anchor");
  EXPECT_EQ(*(*records)[0].Option("qos"), "normal");
  EXPECT_EQ((*records)[3].kind, Kind::kAccount);
  EXPECT_EQ(*(*records)[3].Option("FairShare"), "30");  // keys are case-insensitive
  EXPECT_EQ((*records)[3].line, 6);
  EXPECT_EQ((*records)[3].Option("MaxJobs"), nullptr);
  std::string written;
  for (const FlatFileRecord& r : *records) {
    written += FormatFlatFileRecord(r) + "\n";
  }
  EXPECT_EQ(written, std::string(kDump).substr(std::string(kDump).find("Cluster - 'anchor'")));
}

TEST(FlatFileTest, QuotesMayHoldColons) {
  absl::StatusOr<std::vector<FlatFileRecord>> records =
      ParseFlatFile("Account - 'a:b':Description='x: y'\n", "f");
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_EQ((*records)[0].name, "a:b");
  EXPECT_EQ(*(*records)[0].Option("description"), "x: y");
}

TEST(FlatFileTest, BadLinesNameFileAndLine) {
  EXPECT_THAT(ParseFlatFile("\nAccnt - 'x'\n", "f.cfg").status().message(),
              HasSubstr("f.cfg:2: unknown record type 'Accnt'"));
  EXPECT_THAT(ParseFlatFile("Account 'x'\n", "f").status().message(), HasSubstr("f:1: expected"));
  EXPECT_THAT(ParseFlatFile("Account - ''\n", "f").status().message(), HasSubstr("without a name"));
  EXPECT_THAT(ParseFlatFile("Account - 'x:Fairshare\n", "f").status().message(),
              HasSubstr("unterminated"));
  EXPECT_THAT(ParseFlatFile("Account - 'x':Fairshare\n", "f").status().message(),
              HasSubstr("'Fairshare' is not Key=Value"));
}

}  // namespace
}  // namespace canopy::slurm
