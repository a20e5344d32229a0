#include "ctl/output/text_table.h"

#include "gtest/gtest.h"

namespace canopy::ctl::output {
namespace {

TEST(TextTableTest, AlignsColumnsWithTwoSpaces) {
  TextTable t({"NODE", "STATE"});
  t.AddRow({"gpu001", "idle"});
  t.AddRow({"g2", "down*"});
  EXPECT_EQ(t.Render(),
            "NODE    STATE\n"
            "gpu001  idle\n"
            "g2      down*\n");
}

}  // namespace
}  // namespace canopy::ctl::output
