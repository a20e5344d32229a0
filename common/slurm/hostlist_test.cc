// Tests for ExpandHostlist / CompressHostlist. Every expected string was produced by Slurm
// 22.05.8's `scontrol show hostnames EXPR` / `scontrol show hostlist LIST` (see
// docs/compat/scontrol-hostlist.md); the error cases are where we are stricter than Slurm on
// purpose.
#include "common/slurm/hostlist.h"

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/slurm/hostlist_runs.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::slurm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Expansion joined with ',' keeps the expectations on one line, like scontrol's output.
std::string Expand(std::string_view expression) {
  absl::StatusOr<std::vector<std::string>> hosts = ExpandHostlist(expression);
  if (!hosts.ok()) {
    return absl::StrCat("ERROR: ", hosts.status().message());
  }
  return absl::StrJoin(*hosts, ",");
}

// `scontrol show hostlist LIST` for a plain comma list.
std::string Compress(absl::string_view list) {
  std::vector<std::string> hosts = absl::StrSplit(list, ',', absl::SkipEmpty());
  return CompressHostlist(hosts);
}

// The error message (as a std::string so gMock prints it readably); "" when expansion succeeds.
std::string HostlistErrorOf(std::string_view expression) {
  return std::string(ExpandHostlist(expression).status().message());
}

// ---- ExpandHostlist: accepted forms -----------------------------------------------------------

TEST(ExpandHostlistTest, PlainNamesAndLists) {
  EXPECT_EQ(Expand("n1"), "n1");
  EXPECT_EQ(Expand("login"), "login");
  EXPECT_EQ(Expand("a,b,a"), "a,b,a");  // order and duplicates kept
  EXPECT_EQ(Expand("n1,n01"), "n1,n01");
  EXPECT_EQ(Expand("n01,n1"), "n01,n1");
}

TEST(ExpandHostlistTest, ZeroPaddingFollowsTheLowBound) {
  EXPECT_THAT(*ExpandHostlist("gpu[001-004]"), ElementsAre("gpu001", "gpu002", "gpu003", "gpu004"));
  EXPECT_EQ(Expand("n[8-11]"), "n8,n9,n10,n11");
  EXPECT_EQ(Expand("n[008-11]"), "n008,n009,n010,n011");
  EXPECT_EQ(Expand("n[01-3]"), "n01,n02,n03");
  EXPECT_EQ(Expand("n[1-03]"), "n1,n2,n3");  // the high bound's zeros do not count
  EXPECT_EQ(Expand("n[0-1]"), "n0,n1");
}

TEST(ExpandHostlistTest, ListsInsideBrackets) {
  EXPECT_EQ(Expand("n[1,3-5,7]"), "n1,n3,n4,n5,n7");
  EXPECT_EQ(Expand("n[3,1,2]"), "n3,n1,n2");
  EXPECT_EQ(Expand("n[1-2],n[2-3]"), "n1,n2,n2,n3");
  EXPECT_EQ(Expand("n[1-2],m[3-4]"), "n1,n2,m3,m4");
  EXPECT_EQ(Expand("[1-3]"), "1,2,3");  // empty prefix
  EXPECT_EQ(Expand("n[5]"), "n5");
}

TEST(ExpandHostlistTest, TwoGroupsFirstVariesSlowest) {
  EXPECT_EQ(Expand("rack[1-2]-gpu[01-04]"),
            "rack1-gpu01,rack1-gpu02,rack1-gpu03,rack1-gpu04,"
            "rack2-gpu01,rack2-gpu02,rack2-gpu03,rack2-gpu04");
  EXPECT_EQ(Expand("n[1-2]-x[3-4]"), "n1-x3,n1-x4,n2-x3,n2-x4");
  EXPECT_EQ(Expand("n[1-2]x[3-4],m"), "n1x3,n1x4,n2x3,n2x4,m");
}

TEST(ExpandHostlistTest, ThreeOrMoreGroupsUseSlurmsNesting) {
  // Slurm nests the second-to-last group outermost, then the others backwards to the first,
  // and the last group innermost.
  EXPECT_EQ(Expand("x[1-2]y[3-4]z[5-6]"),
            "x1y3z5,x1y3z6,x2y3z5,x2y3z6,x1y4z5,x1y4z6,x2y4z5,x2y4z6");
  EXPECT_EQ(Expand("a[1-2]b[3-4]c[5-6]d[7-8]"),
            "a1b3c5d7,a1b3c5d8,a2b3c5d7,a2b3c5d8,a1b4c5d7,a1b4c5d8,a2b4c5d7,a2b4c5d8,"
            "a1b3c6d7,a1b3c6d8,a2b3c6d7,a2b3c6d8,a1b4c6d7,a1b4c6d8,a2b4c6d7,a2b4c6d8");
}

TEST(ExpandHostlistTest, SeparatorsAndWhitespace) {
  EXPECT_EQ(Expand(""), "");
  EXPECT_EQ(Expand(","), "");
  EXPECT_EQ(Expand(" , "), "");
  EXPECT_EQ(Expand(" n1 , n2 "), "n1,n2");
  EXPECT_EQ(Expand("n1 n2"), "n1,n2");
  EXPECT_EQ(Expand("n1\tn2"), "n1,n2");
  EXPECT_EQ(Expand("n1,,n2"), "n1,n2");
  EXPECT_EQ(Expand("n[1-2],"), "n1,n2");
  EXPECT_EQ(Expand("n[1-2] ,m[3-4]"), "n1,n2,m3,m4");
  // Slurm keeps "\n" inside the name; we treat all whitespace as a separator.
  EXPECT_EQ(Expand("n1\nn2\n"), "n1,n2");
}

TEST(ExpandHostlistTest, LargestSlurmRange) {
  absl::StatusOr<std::vector<std::string>> hosts = ExpandHostlist("n[1-65536]");
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  EXPECT_EQ(hosts->size(), 65536u);
  EXPECT_EQ(hosts->back(), "n65536");
}

TEST(ExpandHostlistTest, ExactlyTheHostCap) {
  // Slurm prints all 1,000,000 names of this expression.
  absl::StatusOr<std::vector<std::string>> hosts = ExpandHostlist("a[1-1000]b[1-1000]");
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  EXPECT_EQ(hosts->size(), kMaxExpandedHosts);
  EXPECT_EQ(hosts->front(), "a1b1");
  EXPECT_EQ(hosts->back(), "a1000b1000");
}

TEST(ExpandHostlistTest, LongNamesAreNotTruncated) {
  const std::string prefix(100, 'x');
  EXPECT_EQ(Expand(prefix + "[1-2]"), absl::StrCat(prefix, "1,", prefix, "2"));
}

// ---- ExpandHostlist: errors -------------------------------------------------------------------

TEST(ExpandHostlistErrorTest, MessagesQuoteTheExpressionAndSayWhy) {
  absl::Status s = ExpandHostlist("n[5-1]").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(HostlistErrorOf("n[5-1]"),
            "invalid hostlist \"n[5-1]\": range \"5-1\" is reversed (5 > 1)");
}

TEST(ExpandHostlistErrorTest, ErrorsSlurmAlsoReports) {
  // scontrol prints "Invalid hostlist: EXPR" for each of these.
  EXPECT_THAT(HostlistErrorOf("a[1-2]b[3-1]"), HasSubstr("range \"3-1\" is reversed"));
  EXPECT_THAT(HostlistErrorOf("n[a-b]"), HasSubstr("range \"a-b\" is not numeric"));
  EXPECT_THAT(HostlistErrorOf("n[0x1-3]"), HasSubstr("is not numeric"));
  EXPECT_THAT(HostlistErrorOf("n[1x2]"), HasSubstr("is not numeric"));
  EXPECT_THAT(HostlistErrorOf("n[1--3]"), HasSubstr("range \"1--3\" is not numeric"));
  EXPECT_THAT(HostlistErrorOf("n[1-2-3]"), HasSubstr("not numeric"));
  EXPECT_THAT(HostlistErrorOf("n[-1]"), HasSubstr("missing a bound"));
  EXPECT_THAT(HostlistErrorOf("n[1-3 ]"), HasSubstr("not numeric"));
  EXPECT_THAT(HostlistErrorOf("n[1 ,2]"), HasSubstr("not numeric"));
  EXPECT_THAT(HostlistErrorOf("n[]"), HasSubstr("empty range \"[]\""));
  EXPECT_THAT(HostlistErrorOf("[]"), HasSubstr("empty range"));
  EXPECT_THAT(HostlistErrorOf("n[1-3,]"), HasSubstr("empty range in \"[1-3,]\""));
  EXPECT_THAT(HostlistErrorOf("n[,1]"), HasSubstr("empty range"));
  EXPECT_THAT(HostlistErrorOf("n[[1-2]]"), HasSubstr("nested '['"));
  EXPECT_THAT(HostlistErrorOf("n[1-2]]"), HasSubstr("unbalanced ']'"));
  EXPECT_THAT(HostlistErrorOf("n[1-2]a"),
              HasSubstr("text \"a\" after the last ']' in \"n[1-2]a\" is not allowed"));
  EXPECT_THAT(HostlistErrorOf("a[1-2]b,c"), HasSubstr("text \"b\" after the last ']'"));
  EXPECT_THAT(HostlistErrorOf("n[1-65537]"),
              HasSubstr("range \"1-65537\" has 65537 hosts; Slurm allows at most 65536"));
}

TEST(ExpandHostlistErrorTest, MalformedInputSlurmAccepts) {
  // Slurm prints "n]", "n1", "n01,n02,n03", "a]b1,a]b2" ... for these; we refuse them.
  EXPECT_THAT(HostlistErrorOf("n[1-2"), HasSubstr("unbalanced '[' in \"n[1-2\""));
  EXPECT_THAT(HostlistErrorOf("["), HasSubstr("unbalanced '['"));
  EXPECT_THAT(HostlistErrorOf("n[1-2],["), HasSubstr("unbalanced '['"));
  EXPECT_THAT(HostlistErrorOf("a[1-2b[1-2]"), HasSubstr("nested '['"));
  EXPECT_THAT(HostlistErrorOf("]"), HasSubstr("unbalanced ']'"));
  EXPECT_THAT(HostlistErrorOf("a]b[1-2]"), HasSubstr("unbalanced ']'"));
  EXPECT_THAT(HostlistErrorOf("n[1-]"), HasSubstr("missing a bound"));
  EXPECT_THAT(HostlistErrorOf("n[ 1-3]"), HasSubstr("not numeric"));
  EXPECT_THAT(HostlistErrorOf("n[+1-3]"), HasSubstr("not numeric"));
  EXPECT_THAT(HostlistErrorOf("n[1, 2]"), HasSubstr("not numeric"));
  // Slurm's strtoul saturates here (and segfaults on the second).
  EXPECT_THAT(HostlistErrorOf("n[99999999999999999998-99999999999999999999]"),
              HasSubstr("too large"));
  EXPECT_THAT(HostlistErrorOf("n[18446744073709551614-18446744073709551615]"),
              HasSubstr("too large"));
}

TEST(ExpandHostlistErrorTest, TooManyHosts) {
  // Slurm expands the first (1,001,000 names) and is OOM-killed on bigger ones.
  EXPECT_THAT(HostlistErrorOf("a[1-1000]b[1-1001]"),
              HasSubstr("expands to more than 1000000 hosts"));
  EXPECT_THAT(HostlistErrorOf("a[1-65536]b[1-65536]c[1-65536]d[1-65536]"),
              HasSubstr("more than 1000000 hosts"));
  EXPECT_THAT(HostlistErrorOf("a[1-1000]b[1-1000],c"), HasSubstr("more than 1000000"));
  // Long names are capped by size as well as by count.
  EXPECT_THAT(HostlistErrorOf(std::string(100, 'x') + "[1-1000]y[1-1000]"),
              HasSubstr("MiB of host names"));
}

TEST(ExpandHostlistErrorTest, LongExpressionsAreCutInMessages) {
  std::string expression(5000, 'a');
  expression += "[9-1]";
  const std::string message = HostlistErrorOf(expression);
  EXPECT_LT(message.size(), 400u);
  EXPECT_THAT(message, HasSubstr("(5005 characters)"));
}

TEST(ExpandHostlistErrorTest, NeverCrashesOnOddBytes) {
  const std::string odd[] = {"[[[[",      "]]]]",  "[]]",
                             "[-]",       "[,]",   "-",
                             "[-1-]",     "x[1]]", std::string("n\0[1]", 5),
                             "\xff[1-2]", "[0]",   "[000000000000000000000000000001-2]"};
  for (const std::string& e : odd) {
    (void)ExpandHostlist(e);  // any result is fine, as long as it returns
  }
  EXPECT_EQ(Expand("[0]"), "0");
  EXPECT_EQ(Expand("[000000000000000000000000000001-2]"),
            "000000000000000000000000000001,000000000000000000000000000002");
}

// ---- CompressHostlist -------------------------------------------------------------------------

TEST(CompressHostlistTest, Basics) {
  EXPECT_EQ(CompressHostlist({}), "");
  EXPECT_EQ(Compress("n1"), "n1");
  EXPECT_EQ(Compress("node10,node11"), "node[10-11]");
  EXPECT_EQ(Compress("gpu001,gpu002,gpu003,gpu007"), "gpu[001-003,007]");
  EXPECT_EQ(Compress("n1,n2,n3,n7"), "n[1-3,7]");
  EXPECT_EQ(Compress("a1b2,a1b3"), "a1b[2-3]");
  EXPECT_EQ(Compress("n-1,n-2"), "n-[1-2]");
  EXPECT_EQ(Compress("1,2,3"), "[1-3]");
  EXPECT_EQ(Compress("01,02"), "[01-02]");
  EXPECT_EQ(Compress("n0,n1"), "n[0-1]");
  EXPECT_EQ(Compress("n00,n01"), "n[00-01]");
}

TEST(CompressHostlistTest, NeitherSortsNorDeduplicates) {
  EXPECT_EQ(Compress("a,b,a"), "a,b,a");
  EXPECT_EQ(Compress("n3,n2,n1"), "n[3,2,1]");
  EXPECT_EQ(Compress("n1,n3,n2"), "n[1,3,2]");
  EXPECT_EQ(Compress("n1,n2,n2,n3"), "n[1-2,2-3]");
  EXPECT_EQ(Compress("n1,n1"), "n[1,1]");
  EXPECT_EQ(Compress("n1,n2,n3,n4,n5,n3"), "n[1-5,3]");
}

TEST(CompressHostlistTest, OtherNamesSplitBrackets) {
  EXPECT_EQ(Compress("n1,n2,x1,n3"), "n[1-2],x1,n3");
  EXPECT_EQ(Compress("n1,a,n2"), "n1,a,n2");
  EXPECT_EQ(Compress("n,n1"), "n,n1");
  EXPECT_EQ(Compress("n1,n"), "n1,n");
  EXPECT_EQ(Compress("n1,n2,n"), "n[1-2],n");
  EXPECT_EQ(Compress("n1,n2,n3,m1,n5,n6"), "n[1-3],m1,n[5-6]");
  EXPECT_EQ(Compress("x01y1,x1y2"), "x01y1,x1y2");
  EXPECT_EQ(Compress("n1a,n2a"), "n1a,n2a");
}

TEST(CompressHostlistTest, Widths) {
  EXPECT_EQ(Compress("n1,n01"), "n[1,01]");
  EXPECT_EQ(Compress("n01,n1"), "n[01,1]");
  EXPECT_EQ(Compress("n1,n02"), "n[1,02]");
  EXPECT_EQ(Compress("n9,n10"), "n[9-10]");
  EXPECT_EQ(Compress("n09,n10"), "n[09-10]");
  EXPECT_EQ(Compress("n99,n100"), "n[99-100]");
  EXPECT_EQ(Compress("n099,n100"), "n[099-100]");
  EXPECT_EQ(Compress("n001,n2,n003"), "n[001,2,003]");
  EXPECT_EQ(Compress("n010,n9,n11"), "n[010,9,11]");
  EXPECT_EQ(Compress("n9,n010"), "n[9,010]");
  EXPECT_EQ(Compress("n10,n010"), "n[10,010]");
  EXPECT_EQ(Compress("n0010,n10"), "n[0010,10]");
  EXPECT_EQ(Compress("n001,n002,n01,n02"), "n[001-002,01-02]");
  EXPECT_EQ(Compress("n01,n02,n001,n002"), "n[01-02,001-002]");
}

TEST(CompressHostlistTest, AfterExpansionMatchesScontrolShowHostlist) {
  // `scontrol show hostlist EXPR` == CompressHostlist(ExpandHostlist(EXPR)).
  const std::pair<std::string, std::string> cases[] = {
      {"rack[1-2]-gpu[01-02]", "rack1-gpu[01-02],rack2-gpu[01-02]"},
      {"n[1-3],n[5-6]", "n[1-3,5-6]"},
      {"n[1-3],m1,n[5-6]", "n[1-3],m1,n[5-6]"},
      {"n[001-002],n[01-02]", "n[001-002,01-02]"},
      {"n[8-10],n[011-012]", "n[8-10,011-012]"},
      {"x[1-2]y[3-4]z[5-6]", "x1y3z[5-6],x2y3z[5-6],x1y4z[5-6],x2y4z[5-6]"},
      {"", ""},
      {",", ""},
  };
  for (const auto& [expression, want] : cases) {
    absl::StatusOr<std::vector<std::string>> hosts = ExpandHostlist(expression);
    ASSERT_TRUE(hosts.ok()) << expression;
    EXPECT_EQ(CompressHostlist(*hosts), want) << expression;
  }
}

TEST(CompressHostlistTest, HugeNumbersStayLiteral) {
  // Slurm's strtoul saturates and prints n[18446744073709551615,...]; we keep such names as-is.
  EXPECT_EQ(Compress("n99999999999999999999,n99999999999999999998"),
            "n99999999999999999999,n99999999999999999998");
  EXPECT_EQ(Compress("n999999999999999998,n999999999999999999"),
            "n[999999999999999998-999999999999999999]");
}

TEST(CompressHostlistTest, RoundTrip) {
  const std::string expressions[] = {"gpu[0001-4096]", "n[1-3,5,7-9],login[01-02]", "a,b,c"};
  for (const std::string& e : expressions) {
    absl::StatusOr<std::vector<std::string>> hosts = ExpandHostlist(e);
    ASSERT_TRUE(hosts.ok());
    EXPECT_EQ(CompressHostlist(*hosts), e);
  }
}

// ---- CompressHostlistExpression: `scontrol show hostlist EXPR` --------------------------------

std::string CompressExpression(std::string_view expression) {
  absl::StatusOr<std::string> out = CompressHostlistExpression(expression);
  return out.ok() ? *out : absl::StrCat("ERROR: ", out.status().message());
}

TEST(CompressHostlistExpressionTest, MatchesScontrolShowHostlist) {
  const std::pair<std::string, std::string> cases[] = {
      {"", ""},
      {",", ""},
      {"a,b,a", "a,b,a"},
      {"n1,n2,n3,n7", "n[1-3,7]"},
      {"n5", "n5"},
      {"n[5]", "n5"},
      {"n5,n[6-7]", "n[5-7]"},
      {"[1-3]", "[1-3]"},
      {"n[9-10]", "n[9-10]"},
      {"n[09-10]", "n[09-10]"},
      {"n[1-2],n[2-3]", "n[1-2,2-3]"},
      {"n[1-3],n4,n[5-6]", "n[1-6]"},
      {"n[7-9],n[10-11]", "n[7-11]"},
      {"n[1-3],n[5-6]", "n[1-3,5-6]"},
      {"n[1-3],m1,n[5-6]", "n[1-3],m1,n[5-6]"},
      {"n[1-2],n03", "n[1-2,03]"},
      {"n[01-02],n3", "n[01-02,3]"},
      {"n[001-002],n[01-02]", "n[001-002,01-02]"},
      {"n[8-10],n[011-012]", "n[8-10,011-012]"},
      {"a[99,03-9,10]", "a[99,03-10]"},
      {"a9,b0[81-92,10-10,11-18],a84,r1n", "a9,b0[81-92,10-18],a84,r1n"},
      {"gpu[00001-16384]", "gpu[00001-16384]"},
      // The text before '[' is kept as written, not re-split into prefix and digits.
      {"b0[1,3-10,8]", "b0[1,3-10,8]"},
      {"n0[1-2],n03", "n0[1-2],n03"},
      // Only the last group stays ranged.
      {"rack[1-2]-gpu[01-02]", "rack1-gpu[01-02],rack2-gpu[01-02]"},
      {"x[1-2]y[3-4]z[5-6]", "x1y3z[5-6],x2y3z[5-6],x1y4z[5-6],x2y4z[5-6]"},
      {"x-[10-12][24]", "x-1024,x-1124,x-1224"},
      {"gpu[1-3][11-21,10-10],[011,11-16,1-05],100",
       "gpu1[11-21,10],gpu2[11-21,10],gpu3[11-21,10],[011,11-16,1-5,100]"},
  };
  for (const auto& [expression, want] : cases) {
    EXPECT_EQ(CompressExpression(expression), want) << expression;
  }
}

TEST(CompressHostlistExpressionTest, DiffersFromCompressingTheNames) {
  // `scontrol show hostlist b01,b03,b04` prints "b[01,03-04]"; "b0[1,3-4]" stays as written.
  EXPECT_EQ(Compress("b01,b03,b04"), "b[01,03-04]");
  EXPECT_EQ(CompressExpression("b0[1,3-4]"), "b0[1,3-4]");
}

TEST(CompressHostlistExpressionTest, SameErrorsAsExpand) {
  EXPECT_EQ(CompressExpression("n[5-1]"),
            "ERROR: invalid hostlist \"n[5-1]\": range \"5-1\" is reversed (5 > 1)");
  EXPECT_THAT(CompressExpression("n[1-2]x,n3"), HasSubstr("after the last ']'"));
  EXPECT_THAT(CompressExpression("a[1-1000]b[1-1001]"), HasSubstr("more than 1000000 hosts"));
}

// ---- Sorting: `scontrol show hostlistsorted` --------------------------------------------------

std::string Sorted(std::string_view expression) {
  absl::StatusOr<std::string> out = CompressHostlistExpression(expression, HostlistOrder::kSorted);
  return out.ok() ? *out : absl::StrCat("ERROR: ", out.status().message());
}

TEST(SortedHostlistTest, MatchesScontrolShowHostlistsorted) {
  const std::pair<std::string, std::string> cases[] = {
      {"", ""},
      {"z,y,x", "x,y,z"},
      {"n2,n1", "n[1-2]"},
      {"n3,n1,n2,n1,b,a", "a,b,n[1,1-3]"},  // sorted, not deduplicated
      {"n1,n[1-3],n2", "n[1,1-2,2-3]"},
      {"n[1-5],n[3-4]", "n[1-3,3-4,4-5]"},
      {"n[1-10],n[2-3],n5", "n[1-2,2-3,3-5,5-10]"},
      {"r10n1,r2n1,r1n2,r1n1", "r1n[1-2],r2n1,r10n1"},  // natural order of prefixes
      {"a10,a2,a1b,a", "a,a[2,10],a1b"},                // a name without number first
      {"n01x1,n1x2,n001x3", "n001x3,n01x1,n1x2"},
      {"b0[3,1-2]", "b0[1-3]"},  // prefixes kept as written
      {"rack[1-2]-gpu[01-02],rack1-gpu03", "rack1-gpu[01-03],rack2-gpu[01-02]"},
      // Mixed paddings: by number where the paddings agree, else by width.
      {"n10,n9,b,n1,n01,a,n2,n001,n3", "a,b,n[1-3,9,01,10,001]"},
      {"n02,n9,n10,x-8", "n[9-10,02],x-8"},
      {"x-09,x-9,x-10,gpu0009,8,n", "8,gpu0009,n,x-[9-10,09]"},
      {"a1b,a1b2,a1b3,a1b3,9,10,9,a1b11,00,01,node098", "[9,9-10,00-01],a1b,a1b[2-3,3,11],node098"},
      {"gpu[00001-16384]", "gpu[00001-16384]"},
  };
  for (const auto& [expression, want] : cases) {
    EXPECT_EQ(Sorted(expression), want) << expression;
  }
  EXPECT_THAT(Sorted("n[2-1]"), HasSubstr("is reversed"));
}

TEST(SortedHostlistTest, KeepsHostsSlurmLoses) {
  // Slurm 22.05 prints "[8-9,9-10,10,99],gpu8,node11" here: hostlist_coalesce frees a range it
  // still uses and 11, 12 and 02 vanish. We keep all nine hosts.
  EXPECT_EQ(Sorted("[9-12],gpu8,[8-10,02,99],node11"), "[8-9,9-10,10-12,02,99],gpu8,node11");
}

TEST(SortHostlistTest, CompressingSortedNamesIsHostlistsorted) {
  const std::vector<std::string> names = {"n10", "n9", "b", "n1", "n01", "a", "n2", "n001", "n3"};
  EXPECT_THAT(SortHostlist(names),
              ElementsAre("a", "b", "n1", "n2", "n3", "n9", "n01", "n10", "n001"));
  EXPECT_EQ(CompressHostlist(SortHostlist(names)), "a,b,n[1-3,9,01,10,001]");
  EXPECT_EQ(CompressHostlist(SortHostlist({"n3", "n1", "n2", "n1"})), "n[1,1-3]");
  EXPECT_THAT(SortHostlist({}), IsEmpty());
  // Names are sorted as names: b01,b03 have prefix "b", unlike the expression "b0[1,3]".
  EXPECT_EQ(CompressHostlist(SortHostlist({"b03", "b01", "b02"})), "b[01-03]");
}

TEST(NaturalCompareTest, SlurmStrnatcmp) {
  using internal::NaturalCompare;
  EXPECT_LT(NaturalCompare("a2", "a10"), 0);
  EXPECT_GT(NaturalCompare("a10", "a2"), 0);
  EXPECT_EQ(NaturalCompare("rack1-", "rack1-"), 0);
  EXPECT_LT(NaturalCompare("a01", "a1"), 0);  // leading zero: compared digit by digit
  EXPECT_LT(NaturalCompare("", "a"), 0);
  EXPECT_LT(NaturalCompare("A", "a"), 0);     // case-sensitive
  EXPECT_EQ(NaturalCompare("a b", "ab"), 0);  // whitespace is skipped
  EXPECT_LT(NaturalCompare("x9y", "x10y"), 0);
}

// ---- Speed: a 16k-node topology.conf is parsed at start-up ------------------------------------

TEST(HostlistSpeedTest, SixteenThousandNodesAreFast) {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<std::string>> hosts = ExpandHostlist("gpu[00001-16384]");
  ASSERT_TRUE(hosts.ok());
  ASSERT_EQ(hosts->size(), 16384u);
  EXPECT_EQ(CompressHostlist(*hosts), "gpu[00001-16384]");
  const auto elapsed = std::chrono::steady_clock::now() - start;
  // The budget is 10 ms on a release build; allow slack for sanitizers and busy CI machines.
  EXPECT_LT(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count(), 200);
}

}  // namespace
}  // namespace canopy::slurm
