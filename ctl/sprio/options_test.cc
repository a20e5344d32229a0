#include "ctl/sprio/options.h"

#include "gtest/gtest.h"

namespace canopy::ctl::sprio {
namespace {

const char kTry[] = "\nTry \"sprio --help\" for more information";

TEST(SprioOptionsTest, EveryForm) {
  absl::StatusOr<SprioOptions> o = ParseSprioArgs(
      {"-hln", "-w", "--format=%i", "--partition", "gpu,cpu", "--users=a,b", "--jobs=5,6_1"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->no_header);
  EXPECT_TRUE(o->long_format);
  EXPECT_TRUE(o->normalized);
  EXPECT_TRUE(o->weights);
  EXPECT_EQ(o->format, "%i");
  EXPECT_EQ(o->partitions, (std::vector<std::string>{"gpu", "cpu"}));
  EXPECT_EQ(o->users, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(o->jobs_given);
  EXPECT_EQ(o->jobs, (std::vector<uint32_t>{5, 6}));
  EXPECT_EQ(ParseSprioArgs({"-u", "c"})->users, (std::vector<std::string>{"c"}));
  EXPECT_EQ(ParseSprioArgs({"--user=d"})->users, (std::vector<std::string>{"d"}));
  EXPECT_TRUE(ParseSprioArgs({"--help"})->help);
  EXPECT_TRUE(ParseSprioArgs({"--usage"})->usage);
  EXPECT_TRUE(ParseSprioArgs({"--noheader"})->no_header);
  EXPECT_TRUE(ParseSprioArgs({"--norm"})->normalized);
  EXPECT_TRUE(ParseSprioArgs({"--weights"})->weights);
}

TEST(SprioOptionsTest, JobsTakeTheirListAttachedOrFromTheFirstOperand) {
  EXPECT_EQ(ParseSprioArgs({"-j1220"})->jobs, (std::vector<uint32_t>{1220}));
  EXPECT_EQ(ParseSprioArgs({"-j", "1220,1221"})->jobs, (std::vector<uint32_t>{1220, 1221}));
  EXPECT_EQ(ParseSprioArgs({"--jobs", "-l", "7"})->jobs, (std::vector<uint32_t>{7}));
  EXPECT_FALSE(ParseSprioArgs({"-j"})->jobs_given);
  EXPECT_EQ(ParseSprioArgs({"-j", "x"}).status().message(), "error: Invalid job id: x");
  EXPECT_EQ(ParseSprioArgs({"-j", "0"}).status().message(), "error: Invalid job id: 0");
  const absl::Status stray = ParseSprioArgs({"-j", "5", "6"}).status();
  EXPECT_EQ(stray.message(), "error: Unrecognized option: 6");
  EXPECT_TRUE(IsUnrecognizedOperand(stray));
  EXPECT_FALSE(IsUnrecognizedOperand(ParseSprioArgs({"-j", "x"}).status()));
}

TEST(SprioOptionsTest, GetoptErrors) {
  EXPECT_EQ(ParseSprioArgs({"--bogus"}).status().message(),
            std::string("unrecognized option '--bogus'") + kTry);
  EXPECT_EQ(ParseSprioArgs({"-o"}).status().message(),
            std::string("option requires an argument -- 'o'") + kTry);
  EXPECT_EQ(ParseSprioArgs({"-Z"}).status().message(), std::string("invalid option -- 'Z'") + kTry);
  EXPECT_EQ(ParseSprioArgs({"--weights=1"}).status().message(),
            std::string("option '--weights' doesn't allow an argument") + kTry);
}

TEST(SprioOptionsTest, Version) {
  EXPECT_TRUE(ParseSprioArgs({"-V"})->version);
  EXPECT_TRUE(ParseSprioArgs({"--version"})->version);
  EXPECT_FALSE(ParseSprioArgs({})->version);
  // The first request is answered as soon as it is reached, as sprio exits there.
  absl::StatusOr<SprioOptions> o = ParseSprioArgs({"-V", "--help", "--bogus"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->version);
  EXPECT_FALSE(o->help);
}

}  // namespace
}  // namespace canopy::ctl::sprio
