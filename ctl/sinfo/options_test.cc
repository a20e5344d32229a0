#include "ctl/sinfo/options.h"

#include "gtest/gtest.h"

namespace canopy::ctl::sinfo {
namespace {

const std::string kTry = "\nTry \"sinfo --help\" for more information";

TEST(SinfoOptionsTest, BadOptionsSayWhat) {
  // The command prints "sinfo: " before the first line (client::PrintCliError).
  EXPECT_EQ(ParseSinfoArgs({"--bogus"}).status().message(), "unrecognized option '--bogus'" + kTry);
  // getopt's line, then sinfo's hint (sinfo/opts.c prints it for every getopt error).
  EXPECT_EQ(ParseSinfoArgs({"-o"}).status().message(), "option requires an argument -- 'o'" + kTry);
  EXPECT_EQ(ParseSinfoArgs({"foo"}).status().message(), "unrecognized option 'foo'" + kTry);
}

TEST(SinfoOptionsTest, GetoptRules) {
  absl::StatusOr<SinfoOptions> o =
      ParseSinfoArgs({"-hNs", "--part=gpu", "--nodes", "n[1-2]", "-o%N", "--list"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->no_header);
  EXPECT_TRUE(o->node_oriented);
  EXPECT_TRUE(o->summarize);
  EXPECT_TRUE(o->reasons);
  EXPECT_EQ(o->partition, "gpu");
  EXPECT_EQ(o->nodes, "n[1-2]");
  EXPECT_EQ(o->format, "%N");
  EXPECT_EQ(ParseSinfoArgs({"--no"}).status().message(),
            "option '--no' is ambiguous; possibilities: '--nodes' '--noheader'" + kTry);
}

}  // namespace
}  // namespace canopy::ctl::sinfo
