// sinfo's command line; the error texts are what Slurm 22.05.8's sinfo printed for the same
// arguments (after "sinfo: ", which the command adds; the "Try" hint bare).
#include "ctl/sinfo/options.h"

#include "absl/strings/match.h"
#include "ctl/sinfo/format.h"
#include "ctl/sinfo/help.h"
#include "gtest/gtest.h"

namespace canopy::ctl::sinfo {
namespace {

const std::string kTry = "\nTry \"sinfo --help\" for more information";

std::string Error(const std::vector<std::string>& args, const SinfoEnvironment& env = {}) {
  absl::StatusOr<SinfoOptions> o = ParseSinfoArgs(args, env);
  return o.ok() ? "<ok>" : std::string(o.status().message());
}

TEST(SinfoOptionsTest, GetoptErrors) {
  EXPECT_EQ(Error({"--bogus"}), "unrecognized option '--bogus'" + kTry);
  EXPECT_EQ(Error({"-o"}), "option requires an argument -- 'o'" + kTry);
  EXPECT_EQ(Error({"-F"}), "invalid option -- 'F'" + kTry);  // --future came after 22.05
  EXPECT_EQ(Error({"--fut"}), "unrecognized option '--fut'" + kTry);
  EXPECT_EQ(
      Error({"--no"}),
      "option '--no' is ambiguous; possibilities: '--nodes' '--noconvert' '--noheader'" + kTry);
  EXPECT_EQ(Error({"--ver"}),
            "option '--ver' is ambiguous; possibilities: '--verbose' '--version'" + kTry);
  EXPECT_EQ(Error({"--json=x"}), "option '--json' doesn't allow an argument" + kTry);
  EXPECT_EQ(Error({"--bogus", "--help"}), "unrecognized option '--bogus'" + kTry);
}

TEST(SinfoOptionsTest, ValueErrors) {
  EXPECT_EQ(Error({"-i", "0"}), "error: Error: invalid entry for --iterate=0");
  EXPECT_EQ(Error({"--iterate=abc"}), "error: Error: invalid entry for --iterate=abc");
  const std::string valid =
      "error: valid states: unknown,down,idle,allocated,?,mixed,future,drain,drained,draining,"
      "no_respond,reserved,perfctrs,cloud,completing,powering_down,powered_down,power_down,"
      "powering_up,fail,maint,reboot,reboot^,unknown";
  EXPECT_EQ(Error({"-t", "bogus"}), "error: Bad state string: \"bogus\"\n" + valid);
  EXPECT_EQ(Error({"-t", "idle,bogus"}), "error: Bad state string: \"bogus\"\n" + valid);
  // The first bad option ends the parse.
  EXPECT_EQ(Error({"-t", "bogus", "-i", "0"}), "error: Bad state string: \"bogus\"\n" + valid);
  EXPECT_EQ(Error({"-a", "-p", "gpu"}),
            "error: Conflicting options, -a and -p, specified. Please choose one or the other.");
  EXPECT_EQ(Error({"-l", "-o", "%N"}),
            "fatal: Options -o(--format) and -l(--long) are mutually exclusive. Please remove "
            "one and retry.");
  EXPECT_EQ(Error({"-O", "NodeList", "--long"}),
            "fatal: Options -o(--format) and -l(--long) are mutually exclusive. Please remove "
            "one and retry.");
  EXPECT_EQ(Error({"--json"}), "error: --json is not supported by Canopy's sinfo");
  EXPECT_EQ(Error({"--yaml"}), "error: --yaml is not supported by Canopy's sinfo");
  SinfoEnvironment env;
  env.sinfo_all = true;
  env.sinfo_partition = "gpu";
  EXPECT_EQ(Error({"--help"}, env),
            "error: Conflicting options, SINFO_ALL and SINFO_PARTITION, specified. Please choose "
            "one or the other.");
}

TEST(SinfoOptionsTest, EveryOption) {
  absl::StatusOr<SinfoOptions> o =
      ParseSinfoArgs({"-adehlNrRsv", "-i", "2x", "-n", "gpu[1-2]", "--noconvert", "-S", "-D", "-t",
                      "idle,drain", "-M", "c1", "--federation", "--local", "operand"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->all && o->dead && o->exact && o->no_header && o->long_output);
  EXPECT_TRUE(o->node_oriented && o->responding && o->reasons && o->summarize && o->noconvert);
  EXPECT_EQ(o->iterate_seconds, 2);  // atoi: "2x" is 2
  EXPECT_EQ(o->nodes, "gpu[1-2]");
  EXPECT_TRUE(o->nodes_given);
  EXPECT_EQ(o->sort, "-D");
  ASSERT_TRUE(o->states.has_value());
  EXPECT_EQ(o->states->ids.size(), 2u);
  // -s wins the choice of format, and a default format is in -O's language.
  EXPECT_EQ(o->format, kSummarizeFormat);
  EXPECT_TRUE(o->format_long);
  EXPECT_TRUE(o->size_partition);
  EXPECT_FALSE(o->size_node_list);

  o = ParseSinfoArgs({"--part=gpu,cpu", "--Form=NodeList:10", "-T", "--hide", "--clusters=x"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->partitions, (std::vector<std::string>{"gpu", "cpu"}));
  EXPECT_EQ(o->format, "NodeList:10");
  EXPECT_TRUE(o->format_long);
  EXPECT_TRUE(o->format_given);
  EXPECT_TRUE(o->reservations);
  EXPECT_FALSE(o->all);

  // The last of -o / -O wins.
  o = ParseSinfoArgs({"-O", "NodeList", "--format=%N"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->format, "%N");
  EXPECT_FALSE(o->format_long);
}

TEST(SinfoOptionsTest, InfoRequestsStopTheParse) {
  absl::StatusOr<SinfoOptions> o = ParseSinfoArgs({"--help", "--bogus"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->info, SinfoInfo::kHelp);
  o = ParseSinfoArgs({"--usage"});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->info, SinfoInfo::kUsage);
  o = ParseSinfoArgs({"-V", "-t", "bogus"});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->info, SinfoInfo::kVersion);
  o = ParseSinfoArgs({"--vers"});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->info, SinfoInfo::kVersion);
}

TEST(SinfoOptionsTest, DefaultFormats) {
  auto format_of = [](const std::vector<std::string>& args, const SinfoEnvironment& env = {}) {
    absl::StatusOr<SinfoOptions> o = ParseSinfoArgs(args, env);
    return o.ok() ? o->format : "<error>";
  };
  EXPECT_EQ(format_of({}), kDefaultFormat);
  EXPECT_EQ(format_of({"-l"}), kDefaultLongFormat);
  EXPECT_EQ(format_of({"-N"}), kNodeFormat);
  EXPECT_EQ(format_of({"-N", "-l"}), kNodeLongFormat);
  EXPECT_EQ(format_of({"-R"}), kReasonFormat);
  EXPECT_EQ(format_of({"-R", "-l"}), kReasonLongFormat);
  EXPECT_EQ(format_of({"-N", "-R"}), kNodeFormat);  // -N before -R
  SinfoEnvironment env;
  env.sinfo_format = "%N";
  EXPECT_EQ(format_of({}, env), "%N");
  EXPECT_EQ(format_of({"-N"}, env), kNodeFormat);  // SINFO_FORMAT only for the plain view
  EXPECT_EQ(format_of({"-o", "%D"}, env), "%D");
}

TEST(SinfoOptionsTest, Environment) {
  SinfoEnvironment env;
  env.sinfo_partition = "a,b";
  env.sinfo_sort = "-N";
  absl::StatusOr<SinfoOptions> o = ParseSinfoArgs({}, env);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->partitions, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(o->sort, "-N");
  // -a clears SINFO_PARTITION without conflicting (only -a with -p conflicts); -p and -S win.
  o = ParseSinfoArgs({"-a"}, env);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->partitions.empty());
  o = ParseSinfoArgs({"-p", "c", "-S", "P"}, env);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->partitions, (std::vector<std::string>{"c"}));
  EXPECT_EQ(o->sort, "P");
}

TEST(SinfoOptionsTest, ListReasonsSelectsDownFailAndDrain) {
  absl::StatusOr<SinfoOptions> o = ParseSinfoArgs({"-R"});
  ASSERT_TRUE(o.ok());
  ASSERT_TRUE(o->states.has_value());
  EXPECT_EQ(o->states->ids.size(), 3u);
  o = ParseSinfoArgs({"-R", "-t", "idle"});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->states->ids.size(), 1u);
}

TEST(SinfoOptionsTest, InfoTexts) {
  EXPECT_EQ(SinfoInfoText(SinfoInfo::kUsage),
            "Usage: sinfo [-abdelNRrsTv] [-i seconds] [-t states] [-p partition] [-n nodes]\n"
            "             [-S fields] [-o format] [-O Format] [--federation] [--local]\n");
  const std::string help = SinfoInfoText(SinfoInfo::kHelp);
  EXPECT_EQ(help.substr(0, help.find('\n', help.find('\n') + 1) + 1),
            "Usage: sinfo [OPTIONS]\n"
            "  -a, --all                  show all partitions (including hidden and those\n");
  EXPECT_NE(help.find("\t\t\t     not accessible)\n"), std::string::npos);
  EXPECT_TRUE(absl::EndsWith(help,
                             "\nHelp options:\n"
                             "  --help                     show this help message\n"
                             "  --usage                    display brief usage message\n"));
  EXPECT_EQ(SinfoInfoText(SinfoInfo::kVersion), "slurm 22.05.8 (Canopy's sinfo)\n");
  EXPECT_EQ(SinfoInfoText(SinfoInfo::kNone), "");
}

}  // namespace
}  // namespace canopy::ctl::sinfo
