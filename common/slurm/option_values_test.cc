// The value parsers sbatch and srun share, called directly (sbatch_options_test.cc checks them
// through sbatch's command line, with the texts of Slurm 22.05.8's sbatch).
#include "common/slurm/option_values.h"

#include <csignal>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "common/slurm/recorded_option_values.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::slurm {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

TEST(OptionValuesTest, NodeCounts) {
  EXPECT_EQ(ParseNodeCount("2")->min, 2);
  EXPECT_EQ(ParseNodeCount("2")->max, 2);
  EXPECT_EQ(ParseNodeCount("2-4")->max, 4);
  EXPECT_EQ(ParseNodeCount("-4")->min, 1);
  EXPECT_EQ(ParseNodeCount("x").status().message(), "error: \"x\" is not a valid node count");
  EXPECT_EQ(ParseNodeCount("4-2").status().message(),
            "error: Maximum node count 2 is less than minimum node count 4");
}

TEST(OptionValuesTest, CountsMemoryAndTime) {
  EXPECT_EQ(*ParsePositiveCount("8", "ntasks"), 8);
  EXPECT_EQ(ParsePositiveCount("0", "ntasks").status().message(),
            "error: Invalid numeric value \"0\" for --ntasks.");
  EXPECT_EQ(*ParseMemMib("2G"), 2048);
  EXPECT_EQ(*ParseMemMib("1025K"), 2);
  EXPECT_EQ(ParseMemMib("2X").status().message(), "error: Invalid --mem specification");
  EXPECT_EQ(*ParseTimeLimit("1:30"), absl::Minutes(2));
  EXPECT_EQ(*ParseTimeLimit("0"), absl::InfiniteDuration());
  EXPECT_EQ(ParseTimeLimit("x").status().message(), "error: Invalid --time specification");
}

TEST(OptionValuesTest, GresAndGpus) {
  absl::StatusOr<GresRequest> g = ParseGres("nvme:1,gpu:h100:4");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->gpus_per_node, 4);
  EXPECT_EQ(g->gpu_type, "h100");
  EXPECT_THAT(g->other, ElementsAre("nvme:1"));
  EXPECT_TRUE(ParseGres("NONE")->none);
  EXPECT_EQ(ParseGres("gpu:1,gpu:2").status().message(),
            "error: Invalid generic resource (gres) specification");
  EXPECT_EQ(ParseGpuCount("a100:8")->type, "a100");
  EXPECT_EQ(ParseGpuCount("8")->count, 8);
  EXPECT_FALSE(ParseGpuCount(":8").ok());
}

TEST(OptionValuesTest, ExportEnvironment) {
  const std::map<std::string, std::string> env = {{"HOME", "/h"}, {"SLURM_CONF", "/c"}};
  ExportedEnvironment all = ExportEnvironment(std::nullopt, env);
  EXPECT_EQ(all.variables, env);
  EXPECT_FALSE(all.none);
  ExportedEnvironment none = ExportEnvironment(ParseExport("NONE"), env);
  EXPECT_THAT(none.variables, UnorderedElementsAre(Pair("SLURM_CONF", "/c")));
  EXPECT_TRUE(none.none);
  ExportedEnvironment list = ExportEnvironment(ParseExport("HOME,X=1,UNSET"), env);
  EXPECT_THAT(list.variables,
              UnorderedElementsAre(Pair("SLURM_CONF", "/c"), Pair("HOME", "/h"), Pair("X", "1")));
  EXPECT_FALSE(list.none);
  EXPECT_EQ(ExportEnvironment(ParseExport("ALL,X=1"), env).variables.size(), 3u);
  // Items apply in order, as Slurm 22.05 applies them (whatever sbatch(1)'s example says): after
  // ALL a value given explicitly wins; before a later ALL, the caller's does.
  EXPECT_EQ(ExportEnvironment(ParseExport("ALL,HOME=/other"), env).variables.at("HOME"), "/other");
  ExportedEnvironment late_all = ExportEnvironment(ParseExport("HOME=/other,X=1,all"), env);
  EXPECT_THAT(late_all.variables,
              UnorderedElementsAre(Pair("SLURM_CONF", "/c"), Pair("HOME", "/h"), Pair("X", "1")));
  EXPECT_FALSE(late_all.none);
}

TEST(OptionValuesTest, Signals) {
  EXPECT_EQ(SignalNumber("usr1"), SIGUSR1);
  EXPECT_EQ(SignalNumber("SIGTERM"), SIGTERM);
  EXPECT_EQ(SignalNumber("9"), 9);
  EXPECT_EQ(SignalNumber("SEGV"), SIGSEGV);
  EXPECT_EQ(SignalNumber("128"), std::nullopt);
  EXPECT_EQ(SignalNumber("0"), std::nullopt);
  EXPECT_EQ(SignalNumber("BOGUS"), std::nullopt);
  absl::StatusOr<SbatchSignal> s = ParseSignalSpec("B:USR2@30");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->signal_number, SIGUSR2);
  EXPECT_EQ(s->seconds, 30);
  EXPECT_TRUE(s->batch_only);
}

TEST(OptionValuesTest, Hostlists) {
  EXPECT_TRUE(CheckHostlist("gpu[001-004]", "nodelist").ok());
  EXPECT_THAT(std::string(CheckHostlist("n[1-", "exclude").message()),
              ::testing::StartsWith("error: Invalid --exclude specification: "));
}

TEST(OptionValuesTest, ExitCodes) {
  EXPECT_EQ(ExitCodeOf(absl::OkStatus()), 0);
  EXPECT_EQ(ExitCodeOf(absl::InvalidArgumentError("error: x")), 1);
  EXPECT_EQ(ExitCodeOf(absl::InvalidArgumentError("bad\nTry \"srun --help\" for more")), 255);
  EXPECT_EQ(ExitCodeOf(WithExitCode(absl::InvalidArgumentError("error: x"), 255)), 255);
  EXPECT_EQ(ExitCodeOf(WithDefaultExitCode(WithExitCode(absl::InternalError("x"), 1), 255)), 1);
  EXPECT_EQ(ExitCodeOf(WithDefaultExitCode(absl::InternalError("x"), 255)), 255);
  EXPECT_TRUE(WithExitCode(absl::OkStatus(), 3).ok());
  EXPECT_EQ(ExitCodeOf(ParsePositiveCount("0", "ntasks").status()), 1);
  EXPECT_EQ(ExitCodeOf(ParseGres("gpu:a:x").status()), 1);
}

TEST(OptionValuesTest, MailTypes) {
  EXPECT_EQ(*ParseMailType("begin"), kMailBegin);
  EXPECT_EQ(*ParseMailType("END,FAIL,REQUEUE,STAGE_OUT,INVALID_DEPEND"),
            kMailEnd | kMailFail | kMailRequeue | kMailStageOut | kMailInvalidDepend);
  EXPECT_EQ(*ParseMailType("TIME_LIMIT,TIME_LIMIT_90,TIME_LIMIT_80,TIME_LIMIT_50,ARRAY_TASKS"),
            kMailTime100 | kMailTime90 | kMailTime80 | kMailTime50 | kMailArrayTasks);
  EXPECT_EQ(*ParseMailType("BEGIN,NONE,END"), 0);  // NONE ends the list
  EXPECT_EQ(ParseMailType("x").status().message(), "error: Invalid --mail-type specification");
  EXPECT_EQ(MailTypeString(0), "NONE");
  EXPECT_EQ(MailTypeString(kMailTime100 | kMailBegin | kMailArrayTasks),
            "ARRAY_TASKS,BEGIN,TIME_LIMIT");
}

TEST(OptionValuesTest, CpuBind) {
  for (const char* good :
       {"cores", "v,cores", "verbose,sockets", "none", "no", "rank", "map_cpu:0,1,2",
        "mask_cpu:0x3,0xc", "map_cpu:1,2,verbose", "rank_ldom", "map_ldom:0,1", "mask_ldom:0x1",
        "threads,one_thread", "ldoms", "Quiet"}) {
    absl::StatusOr<bool> r = CheckCpuBind(good);
    ASSERT_TRUE(r.ok()) << good << ": " << r.status();
    EXPECT_FALSE(*r) << good;
  }
  EXPECT_TRUE(*CheckCpuBind("help"));
  absl::Status bad = CheckCpuBind("numa").status();
  EXPECT_EQ(bad.message(),
            "error: unrecognized --cpu-bind argument \"numa\"\n"
            "fatal: Failed to parse --cpu-bind= values.");
  EXPECT_EQ(ExitCodeOf(bad), 1);
  EXPECT_EQ(CheckCpuBind("map_cpu").status().message(),
            "error: missing list for \"--cpu-bind=map_cpu:<list>\"\n"
            "fatal: Failed to parse --cpu-bind= values.");
}

TEST(OptionValuesTest, Propagate) {
  for (const char* good : {"ALL", "NONE", "CORE", "RLIMIT_CORE,NOFILE", "AS MEMLOCK", ""}) {
    EXPECT_TRUE(CheckPropagate(good).ok()) << good;
  }
  absl::Status bad = CheckPropagate("CORE,core");
  EXPECT_EQ(bad.message(),
            "error: Bad rlimit name: core\nerror: --propagate=CORE,core is not valid.");
  EXPECT_EQ(ExitCodeOf(bad), 1);
}

TEST(OptionValuesTest, RunAs) {
  auto lookup = [](const std::string& name) -> std::optional<uint32_t> {
    return name == "alice" ? std::optional<uint32_t>(1001) : std::nullopt;
  };
  EXPECT_EQ(*ResolveRunAs("1234", "uid", 0, lookup), 1234u);
  EXPECT_EQ(*ResolveRunAs("alice", "uid", 0, lookup), 1001u);
  absl::Status not_root = ResolveRunAs("alice", "uid", 1000, lookup).status();
  EXPECT_EQ(not_root.message(), "error: --uid only permitted by root user");
  EXPECT_EQ(ExitCodeOf(not_root), 255);
  EXPECT_EQ(ResolveRunAs("bob", "gid", 0, lookup).status().message(),
            "error: Invalid --gid specification");
}

TEST(OptionValuesTest, Deadline) {
  const absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  EXPECT_EQ(*ParseDeadline("now+1hour", now, absl::UTCTimeZone()), now + absl::Hours(1));
  EXPECT_EQ(ParseDeadline("25:00", now, absl::UTCTimeZone()).status().message(),
            "error: Invalid time specification (pos=2): 25:00\n"
            "error: Invalid --deadline specification");
}

}  // namespace
}  // namespace canopy::slurm
