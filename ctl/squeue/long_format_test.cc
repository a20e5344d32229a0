#include "ctl/squeue/long_format.h"

#include "gtest/gtest.h"

namespace canopy::ctl::squeue {
namespace {

TEST(SqueueLongFormatTest, NamesWidthsAlignmentAndSuffix) {
  absl::StatusOr<std::vector<slurm::FormatItem>> items =
      ParseLongFormat("JobID:10,qos,name:.8|,TRES-PER-NODE");
  ASSERT_TRUE(items.ok()) << items.status();
  ASSERT_EQ(items->size(), 5u);
  EXPECT_EQ((*items)[0].field, 'A');
  EXPECT_EQ((*items)[0].width, 10);
  EXPECT_FALSE((*items)[0].right);
  EXPECT_EQ((*items)[1].field, 'q');
  EXPECT_EQ((*items)[1].width, 20);  // the default
  EXPECT_EQ((*items)[2].field, 'j');
  EXPECT_EQ((*items)[2].width, 8);
  EXPECT_TRUE((*items)[2].right);
  EXPECT_EQ((*items)[3].field, 0);
  EXPECT_EQ((*items)[3].literal, "|");
  EXPECT_EQ((*items)[4].field, 'b');
}

TEST(SqueueLongFormatTest, UnknownNameIsSqueuesError) {
  EXPECT_EQ(ParseLongFormat("jobid,bogus:5").status().message(),
            "error: Invalid job format specification: bogus");
  // Names are whole words, not prefixes.
  EXPECT_FALSE(ParseLongFormat("job").ok());
}

}  // namespace
}  // namespace canopy::ctl::squeue
