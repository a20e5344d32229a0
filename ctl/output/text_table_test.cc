#include "ctl/output/text_table.h"

#include <sstream>

#include "gtest/gtest.h"

namespace canopy::ctl::output {
namespace {

TEST(TextTableTest, AlignsColumnsWithTwoSpaces) {
  TextTable t({"NODE", "STATE"});
  t.AddRow({"gpu001", "idle"});
  t.AddRow({"g2", "down*"});
  std::ostringstream out;
  t.Print(out);
  EXPECT_EQ(out.str(),
            "NODE    STATE\n"
            "gpu001  idle\n"
            "g2      down*\n");
}

}  // namespace
}  // namespace canopy::ctl::output
