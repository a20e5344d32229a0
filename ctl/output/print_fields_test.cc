// Slurm's print_fields rules, checked on small tables; the Slurm-recorded tables are compared
// in the sshare and sacctmgr renderer tests.
#include "ctl/output/print_fields.h"

#include <limits>

#include "gtest/gtest.h"

namespace canopy::ctl::output {
namespace {

TEST(PrintFieldsTest, TableColumnsAlignByTheSignOfTheWidth) {
  FieldsPrinter p({{"Account", -8}, {"Share", 6}}, FieldsMode::kTable, true);
  EXPECT_EQ(p.Header(),
            "Account   Share \n"
            "-------- ------ \n");
  EXPECT_EQ(p.Row({FieldCell::Text("nlp"), FieldCell::Number(30)}), "nlp          30 \n");
  EXPECT_EQ(p.Row({FieldCell::Blank(), FieldCell::Blank()}), "                \n");
}

TEST(PrintFieldsTest, LongTextEndsInPlusButNumbersAreNeverCut) {
  FieldsPrinter p({{"Name", 5}, {"N", 2}}, FieldsMode::kTable, false);
  EXPECT_EQ(p.Header(), "");
  EXPECT_EQ(p.Row({FieldCell::Text("abcdefgh"), FieldCell::Number(12345)}), "abcd+ 12345 \n");
  // Headers are cut without the '+'.
  FieldsPrinter q({{"LongHeader", 4}}, FieldsMode::kTable, true);
  EXPECT_EQ(q.Header(), "Long \n---- \n");
}

TEST(PrintFieldsTest, TimesArePaddedButNeverCut) {
  EXPECT_EQ(FieldCell::Whole("00:00:00").Format(10, FieldsMode::kTable), "  00:00:00");
  EXPECT_EQ(FieldCell::Whole("00:00:00").Format(-10, FieldsMode::kTable), "00:00:00  ");
  EXPECT_EQ(FieldCell::Whole("10-00:00:00").Format(8, FieldsMode::kTable), "10-00:00:00");
  EXPECT_EQ(FieldCell::Whole("01:00:00").Format(8, FieldsMode::kParsable), "01:00:00");
}

TEST(PrintFieldsTest, DoublesUseFixedThenExponentNotation) {
  EXPECT_EQ(FieldCell::Double(0.297030).Format(11, FieldsMode::kTable), "   0.297030");
  EXPECT_EQ(
      FieldCell::Double(std::numeric_limits<double>::infinity()).Format(10, FieldsMode::kTable),
      "       inf");
  EXPECT_EQ(FieldCell::Double(12345678901.0).Format(10, FieldsMode::kTable), "1.2346e+10");
  EXPECT_EQ(FieldCell::Double(0.5).Format(-10, FieldsMode::kTable), "0.500000  ");
}

TEST(PrintFieldsTest, ParsableModesDifferOnlyInTheLastBar) {
  const std::vector<FieldColumn> cols = {{"A", -20}, {"B", 10}};
  const std::vector<FieldCell> row = {FieldCell::Text("a very long account name"),
                                      FieldCell::Blank()};
  FieldsPrinter p({cols}, FieldsMode::kParsable, true);
  EXPECT_EQ(p.Header(), "A|B|\n");
  EXPECT_EQ(p.Row(row), "a very long account name||\n");
  FieldsPrinter p2({cols}, FieldsMode::kParsable2, true);
  EXPECT_EQ(p2.Header(), "A|B\n");
  EXPECT_EQ(p2.Row(row), "a very long account name|\n");
  EXPECT_EQ(FieldCell::Double(1).Format(10, FieldsMode::kParsable2), "1.000000");
}

}  // namespace
}  // namespace canopy::ctl::output
