// sinfo's two format languages, as Slurm 22.05's sinfo reads them.
#include "ctl/sinfo/format.h"

#include "gtest/gtest.h"

namespace canopy::ctl::sinfo {
namespace {

TEST(SinfoFormatTest, ShortFormat) {
  const ParsedFormat p = ParseFormat("pre %.6D|%9P %N");
  EXPECT_TRUE(p.warnings.empty());
  EXPECT_EQ(p.format.prefix, "pre ");
  ASSERT_EQ(p.format.columns.size(), 3u);
  EXPECT_EQ(p.format.columns[0].field, Field::kNodes);
  EXPECT_EQ(p.format.columns[0].width, 6);
  EXPECT_TRUE(p.format.columns[0].right);
  EXPECT_EQ(p.format.columns[0].suffix, "|");
  EXPECT_EQ(p.format.columns[1].field, Field::kPartition);
  EXPECT_EQ(p.format.columns[1].width, 9);
  EXPECT_FALSE(p.format.columns[1].right);
  EXPECT_EQ(p.format.columns[2].field, Field::kNodeList);
  EXPECT_EQ(p.format.columns[2].width, 0);
}

TEST(SinfoFormatTest, ShortFormatQuirks) {
  // No "%%": empty pieces vanish, so "a%%b%N" is prefix "a", then %b and %N.
  ParsedFormat p = ParseFormat("a%%b%N");
  EXPECT_EQ(p.format.prefix, "a");
  ASSERT_EQ(p.format.columns.size(), 2u);
  EXPECT_EQ(p.format.columns[0].field, Field::kFeaturesAct);
  // No '#' and no '-': those are invalid letters, printed back whole.
  p = ParseFormat("%#P|%-9P");
  ASSERT_EQ(p.format.columns.size(), 2u);
  EXPECT_EQ(p.format.columns[0].field, Field::kInvalid);
  EXPECT_EQ(p.format.columns[0].literal, "%#P|");
  EXPECT_EQ(p.format.columns[1].literal, "%-9P");
  EXPECT_EQ(p.warnings, (std::vector<std::string>{"Invalid node format specification: #",
                                                  "Invalid node format specification: -"}));
  // Text alone is a prefix; a trailing '%' is nothing.
  p = ParseFormat("X");
  EXPECT_EQ(p.format.prefix, "X");
  EXPECT_TRUE(p.format.columns.empty());
  p = ParseFormat("%P %");
  ASSERT_EQ(p.format.columns.size(), 1u);
  EXPECT_EQ(p.format.columns[0].suffix, " ");
  // Letters 22.05 does not know.
  for (const char* f : {"%i", "%j", "%k", "%q", "%x", "%y", "%J", "%K", "%Q", "%W"}) {
    EXPECT_EQ(ParseFormat(f).format.columns[0].field, Field::kInvalid) << f;
  }
}

TEST(SinfoFormatTest, AllFields) {
  const ParsedFormat p = ParseFormat("%ALL");
  ASSERT_EQ(p.format.columns.size(), 42u);
  EXPECT_EQ(p.format.columns.front().field, Field::kAvail);
  EXPECT_EQ(p.format.columns.front().suffix, "|");
  EXPECT_EQ(p.format.columns[20].field, Field::kNodesAi);
  EXPECT_EQ(p.format.columns[20].suffix, " |");
  EXPECT_EQ(p.format.columns.back().field, Field::kThreads);
  EXPECT_EQ(p.format.columns.back().suffix, " ");
  EXPECT_EQ(ParseLongFormat("all").format.columns.size(), 42u);
}

TEST(SinfoFormatTest, LongFormat) {
  const ParsedFormat p = ParseLongFormat("NodeList,statelong:.11 ,cpus:4,Gres:0,share,nodelist:");
  EXPECT_TRUE(p.warnings.empty());
  ASSERT_EQ(p.format.columns.size(), 6u);
  EXPECT_EQ(p.format.columns[0].width, 20);
  EXPECT_EQ(p.format.columns[0].suffix, "");
  EXPECT_EQ(p.format.columns[1].field, Field::kStateLong);
  EXPECT_TRUE(p.format.columns[1].right);
  EXPECT_EQ(p.format.columns[1].width, 11);
  EXPECT_EQ(p.format.columns[1].suffix, " ");
  EXPECT_EQ(p.format.columns[2].width, 4);
  EXPECT_EQ(p.format.columns[3].width, 0);
  EXPECT_EQ(p.format.columns[4].field, Field::kOversubscribe);
  EXPECT_EQ(p.format.columns[5].width, 0);
}

TEST(SinfoFormatTest, LongFormatUnknownNames) {
  // 22.05 knows neither "Reservation" nor "Priority" (its man page lists them).
  const ParsedFormat p = ParseLongFormat("bogus:5|,Reservation,Priority");
  ASSERT_EQ(p.format.columns.size(), 3u);
  EXPECT_EQ(p.format.columns[0].field, Field::kInvalid);
  EXPECT_EQ(p.format.columns[0].suffix, "|");
  EXPECT_EQ(p.warnings,
            (std::vector<std::string>{"sinfo: error: Invalid job format specification: bogus",
                                      "sinfo: error: Invalid job format specification: Reservation",
                                      "sinfo: error: Invalid job format specification: Priority"}));
}

TEST(SinfoFormatTest, Headers) {
  EXPECT_EQ(FieldHeader(Field::kSocketCoreThread), "S:C:T");
  EXPECT_EQ(FieldHeader(Field::kGresUsed), "GRES_USED");
  EXPECT_EQ(FieldHeader(Field::kPartitionName), "PARTITION");
  EXPECT_EQ(FieldHeader(Field::kUserLong), "USER");
  EXPECT_EQ(FieldHeader(Field::kInvalid), "");
}

}  // namespace
}  // namespace canopy::ctl::sinfo
