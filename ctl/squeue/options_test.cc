#include "ctl/squeue/options.h"

#include "gtest/gtest.h"

namespace canopy::ctl::squeue {
namespace {

const char kTry[] = "\nTry \"squeue --help\" for more information";

TEST(SqueueOptionsTest, OptionsAndOperandsMix) {
  absl::StatusOr<SqueueOptions> o =
      ParseSqueueArgs({"-j", "5", "-hr", "--partition=gpu,cpu", "--users", "a,b", "-tPD,R"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->jobs, (std::vector<std::string>{"5"}));
  EXPECT_TRUE(o->no_header);
  EXPECT_TRUE(o->expand_arrays);
  EXPECT_EQ(o->partitions, (std::vector<std::string>{"gpu", "cpu"}));
  EXPECT_EQ(o->users, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(o->states.size(), 2u);
}

TEST(SqueueOptionsTest, JobsTakeTheirListAttachedOrFromTheFirstOperand) {
  EXPECT_EQ(ParseSqueueArgs({"--jobs=5_2,9"})->jobs, (std::vector<std::string>{"5_2", "9"}));
  EXPECT_EQ(ParseSqueueArgs({"-j8"})->jobs, (std::vector<std::string>{"8"}));
  EXPECT_EQ(ParseSqueueArgs({"--jobs", "-h", "8"})->jobs, (std::vector<std::string>{"8"}));
  EXPECT_TRUE(ParseSqueueArgs({"-j"})->jobs.empty());
  EXPECT_EQ(ParseSqueueArgs({"-j", "8", "9"}).status().message(), "error: Unrecognized option: 9");
  EXPECT_EQ(ParseSqueueArgs({"foo"}).status().message(), "error: Unrecognized option: foo");
  EXPECT_EQ(ParseSqueueArgs({"-j", "x"}).status().message(), "error: Invalid job id: x");
}

TEST(SqueueOptionsTest, LongFormat) {
  absl::StatusOr<SqueueOptions> o = ParseSqueueArgs({"--Format=jobid,qos:.8"});
  ASSERT_TRUE(o.ok()) << o.status();
  ASSERT_EQ(o->format_long.size(), 2u);
  EXPECT_EQ(o->format_long[1].field, 'q');
  EXPECT_EQ(ParseSqueueArgs({"--Fo", "qos"})->format_long.size(), 1u);  // a unique prefix
  EXPECT_EQ(ParseSqueueArgs({"-O", "qos,bogus"}).status().message(),
            "error: Invalid job format specification: bogus");
  EXPECT_EQ(ParseSqueueArgs({"-O"}).status().message(),
            std::string("option requires an argument -- 'O'") + kTry);
}

TEST(SqueueOptionsTest, GetoptErrors) {
  EXPECT_EQ(ParseSqueueArgs({"--bogus"}).status().message(),
            std::string("unrecognized option '--bogus'") + kTry);
  EXPECT_EQ(ParseSqueueArgs({"-o"}).status().message(),
            std::string("option requires an argument -- 'o'") + kTry);
  EXPECT_EQ(ParseSqueueArgs({"-Z"}).status().message(),
            std::string("invalid option -- 'Z'") + kTry);
  EXPECT_EQ(ParseSqueueArgs({"--us"}).status().message(),
            std::string("option '--user' requires an argument") + kTry);
  EXPECT_EQ(ParseSqueueArgs({"--long=1"}).status().message(),
            std::string("option '--long' doesn't allow an argument") + kTry);
}

}  // namespace
}  // namespace canopy::ctl::squeue
