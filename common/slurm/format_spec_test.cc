#include "common/slurm/format_spec.h"

#include "gtest/gtest.h"

namespace canopy::slurm {
namespace {

TEST(FormatSpecTest, FieldsWidthsAlignmentAndLiterals) {
  const std::vector<FormatItem> items = ParseFormatSpec("%.18i|%-10j %#P 100%% %");
  ASSERT_EQ(items.size(), 6u);
  EXPECT_EQ(items[0].field, 'i');
  EXPECT_EQ(items[0].width, 18);
  EXPECT_TRUE(items[0].right);
  EXPECT_EQ(items[1].literal, "|");
  EXPECT_EQ(items[2].field, 'j');
  EXPECT_EQ(items[2].width, 10);
  EXPECT_FALSE(items[2].right);
  EXPECT_EQ(items[3].literal, " ");
  EXPECT_EQ(items[4].field, 'P');
  EXPECT_TRUE(items[4].automatic);
  EXPECT_EQ(items[5].field, 0);
  EXPECT_EQ(items[5].literal, " 100% %");  // "%%" and a trailing lone "%" are literal
}

}  // namespace
}  // namespace canopy::slurm
