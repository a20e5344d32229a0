// Expected error texts were taken from Slurm 22.05.8's sbatch (Debian 12), run with a minimal
// slurm.conf: the message is what sbatch printed after "sbatch: ".
#include "common/slurm/sbatch_options.h"

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::slurm {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

SbatchOptions MustParse(const std::vector<std::string>& argv) {
  absl::StatusOr<SbatchOptions> o = ParseSbatchCommandLine(argv);
  EXPECT_TRUE(o.ok()) << o.status();
  return o.ok() ? *o : SbatchOptions();
}

std::string ErrorOf(const std::vector<std::string>& argv) {
  absl::StatusOr<SbatchOptions> o = ParseSbatchCommandLine(argv);
  if (o.ok()) {
    return "OK";
  }
  EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(o.status().message());
}

std::string ScriptErrorOf(const std::string& script, const std::vector<std::string>& argv = {}) {
  absl::StatusOr<SbatchOptions> o = ParseSbatch(script, argv);
  if (o.ok()) {
    return "OK";
  }
  EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(o.status().message());
}

// The exit status sbatch ends with for `argv`'s error (0 when it parses).
int ExitOf(const std::vector<std::string>& argv) {
  return ExitCodeOf(ParseSbatchCommandLine(argv).status());
}

constexpr char kScript[] = "#!/bin/sh\ntrue\n";

SbatchOptions MustParseWithEnv(const std::map<std::string, std::string>& env,
                               const std::vector<std::string>& argv = {},
                               const std::string& script = kScript) {
  absl::StatusOr<SbatchOptions> o = ParseSbatch(script, argv, env);
  EXPECT_TRUE(o.ok()) << o.status();
  return o.ok() ? *o : SbatchOptions();
}

absl::Status EnvErrorOf(const std::map<std::string, std::string>& env,
                        const std::vector<std::string>& argv = {}) {
  return ParseSbatch(kScript, argv, env).status();
}

std::vector<std::string> Directives(const std::string& script) {
  absl::StatusOr<std::vector<std::string>> d = ExtractSbatchDirectives(script);
  EXPECT_TRUE(d.ok()) << d.status();
  return d.ok() ? *d : std::vector<std::string>{"<error>"};
}

TEST(SbatchCommandLineTest, Empty) {
  SbatchOptions o = MustParse({});
  EXPECT_FALSE(o.min_nodes.has_value());
  EXPECT_TRUE(o.script_path.empty());
  EXPECT_THAT(o.script_args, IsEmpty());
}

TEST(SbatchCommandLineTest, StringOptionsLongShortAndSeparate) {
  SbatchOptions o = MustParse({"-J", "train", "--partition=gpu", "--account", "ml", "-Dwork", "-o",
                               "out-%j.txt", "--error=err.txt", "--wrap=hostname", "-a", "1-10%2",
                               "--begin=now+1hour", "-d", "afterok:1", "--array=0-3"});
  EXPECT_EQ(o.job_name, "train");
  EXPECT_EQ(o.partition, "gpu");
  EXPECT_EQ(o.account, "ml");
  EXPECT_EQ(o.chdir, "work");
  EXPECT_EQ(o.output, "out-%j.txt");
  EXPECT_EQ(o.error, "err.txt");
  EXPECT_EQ(o.wrap, "hostname");
  EXPECT_EQ(o.array, "0-3");  // the last one wins
  EXPECT_EQ(o.begin, "now+1hour");
  EXPECT_EQ(o.dependency, "afterok:1");
}

TEST(SbatchCommandLineTest, Qos) {
  EXPECT_EQ(MustParse({"-q", "high"}).qos, "high");
  EXPECT_EQ(MustParse({"-qhigh"}).qos, "high");
  EXPECT_EQ(MustParse({"--qos=High"}).qos, "High");  // as written; canopyd matches names exactly
  EXPECT_EQ(MustParse({"--qos", "low", "--qos=high"}).qos, "high");
  EXPECT_EQ(MustParse({}).qos, "");
  EXPECT_EQ(ErrorOf({"--qos"}),
            "option '--qos' requires an argument\nTry \"sbatch --help\" for more information");
}

TEST(SbatchScriptTest, QosDirectiveAndCommandLine) {
  absl::StatusOr<SbatchOptions> o = ParseSbatch("#!/bin/sh\n#SBATCH --qos=low\n", {});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->qos, "low");
  o = ParseSbatch("#!/bin/sh\n#SBATCH -q low\n", {"-q", "high"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->qos, "high");
}

TEST(SbatchCommandLineTest, RequiredValueMayStartWithDash) {
  // As getopt. sbatch itself reports "-wrap=true": the text after the min/max dash.
  EXPECT_EQ(MustParse({"-J", "--weird"}).job_name, "--weird");
  EXPECT_EQ(ErrorOf({"-N", "--wrap=true"}), "error: \"-wrap=true\" is not a valid node count");
}

TEST(SbatchCommandLineTest, EmptyValueAfterEquals) {
  EXPECT_EQ(MustParse({"--job-name="}).job_name, "");
}

TEST(SbatchCommandLineTest, Nodes) {
  SbatchOptions o = MustParse({"-N", "2"});
  EXPECT_EQ(o.min_nodes, 2);
  EXPECT_EQ(o.max_nodes, 2);
  o = MustParse({"-N2-4"});
  EXPECT_EQ(o.min_nodes, 2);
  EXPECT_EQ(o.max_nodes, 4);
  o = MustParse({"--nodes=-3"});  // sbatch -v shows "1-3"
  EXPECT_EQ(o.min_nodes, 1);
  EXPECT_EQ(o.max_nodes, 3);
  o = MustParse({"--nodes", "0"});
  EXPECT_EQ(o.min_nodes, 0);
}

TEST(SbatchCommandLineTest, BadNodes) {
  EXPECT_EQ(ErrorOf({"-N", "abc"}), "error: \"abc\" is not a valid node count");
  EXPECT_EQ(ErrorOf({"-N", "3-1"}),
            "error: Maximum node count 1 is less than minimum node count 3");
  EXPECT_EQ(ErrorOf({"-N", "1-2-3"}), "error: \"2-3\" is not a valid node count");
  EXPECT_EQ(ErrorOf({"-N", "2-"}), "error: \"2-\" is not a valid node count");
}

TEST(SbatchCommandLineTest, Counts) {
  SbatchOptions o = MustParse({"-n", "8", "--ntasks-per-node=4", "-c16"});
  EXPECT_EQ(o.ntasks, 8);
  EXPECT_EQ(o.ntasks_per_node, 4);
  EXPECT_EQ(o.cpus_per_task, 16);
}

TEST(SbatchCommandLineTest, BadCountsUseLongNames) {
  EXPECT_EQ(ErrorOf({"-c", "abc"}), "error: Invalid numeric value \"abc\" for --cpus-per-task.");
  EXPECT_EQ(ErrorOf({"-c", "0"}), "error: Invalid numeric value \"0\" for --cpus-per-task.");
  EXPECT_EQ(ErrorOf({"-c", "2x"}), "error: Invalid numeric value \"2x\" for --cpus-per-task.");
  EXPECT_EQ(ErrorOf({"-n", "-1"}), "error: Invalid numeric value \"-1\" for --ntasks.");
  EXPECT_EQ(ErrorOf({"-n", "0"}), "error: Invalid numeric value \"0\" for --ntasks.");
  EXPECT_EQ(ErrorOf({"--ntasks-per-node=abc"}),
            "error: Invalid numeric value \"abc\" for --ntasks-per-node.");
  EXPECT_EQ(ErrorOf({"--ntasks-per-node=0"}),
            "error: Invalid numeric value \"0\" for --ntasks-per-node.");
}

TEST(SbatchCommandLineTest, MemoryUnits) {
  EXPECT_EQ(MustParse({"--mem=100"}).mem_per_node_mib, 100);
  EXPECT_EQ(MustParse({"--mem=100M"}).mem_per_node_mib, 100);
  EXPECT_EQ(MustParse({"--mem=16G"}).mem_per_node_mib, 16 * 1024);
  EXPECT_EQ(MustParse({"--mem=16g"}).mem_per_node_mib, 16 * 1024);
  EXPECT_EQ(MustParse({"--mem=16GB"}).mem_per_node_mib, 16 * 1024);
  EXPECT_EQ(MustParse({"--mem=2T"}).mem_per_node_mib, 2 * 1024 * 1024);
  EXPECT_EQ(MustParse({"--mem=1024K"}).mem_per_node_mib, 1);
  EXPECT_EQ(MustParse({"--mem=1023K"}).mem_per_node_mib, 1);  // rounds up, as sbatch
  EXPECT_EQ(MustParse({"--mem=2049k"}).mem_per_node_mib, 3);
  EXPECT_EQ(MustParse({"--mem", "0"}).mem_per_node_mib, 0);
}

TEST(SbatchCommandLineTest, BadMemory) {
  for (const char* bad : {"abc", "16X", "16Gx", "1.5G", "-5", "", "G"}) {
    EXPECT_EQ(ErrorOf({std::string("--mem=") + bad}), "error: Invalid --mem specification") << bad;
  }
}

TEST(SbatchCommandLineTest, GpuForms) {
  SbatchOptions o = MustParse({"--gres=gpu:4"});
  EXPECT_EQ(o.gpus_per_node, 4);
  EXPECT_EQ(o.gpu_type, "");
  o = MustParse({"--gres=gpu:a100:8"});
  EXPECT_EQ(o.gpus_per_node, 8);
  EXPECT_EQ(o.gpu_type, "a100");
  o = MustParse({"--gres=gpu"});
  EXPECT_EQ(o.gpus_per_node, 1);
  o = MustParse({"--gres=gpu:h100"});
  EXPECT_EQ(o.gpus_per_node, 1);
  EXPECT_EQ(o.gpu_type, "h100");
  o = MustParse({"--gres=nvme:1,gpu:2"});
  EXPECT_EQ(o.gpus_per_node, 2);
  EXPECT_THAT(o.other_gres, ElementsAre("nvme:1"));
  o = MustParse({"--gpus-per-node=h100:8"});
  EXPECT_EQ(o.gpus_per_node, 8);
  EXPECT_EQ(o.gpu_type, "h100");
  o = MustParse({"--gpus-per-node", "2"});
  EXPECT_EQ(o.gpus_per_node, 2);
  o = MustParse({"-G", "16"});
  EXPECT_EQ(o.gpus_total, 16);
  EXPECT_FALSE(o.gpus_per_node.has_value());
  o = MustParse({"--gpus=a100:4"});
  EXPECT_EQ(o.gpus_total, 4);
  EXPECT_EQ(o.gpu_type, "a100");
  o = MustParse({"--gres=gpu:2", "--gres=none"});
  EXPECT_FALSE(o.gpus_per_node.has_value());
}

TEST(SbatchCommandLineTest, BadGres) {
  for (const std::vector<std::string>& argv :
       std::vector<std::vector<std::string>>{{"--gres=gpu:a100:x"},
                                             {"--gres=gpu:"},
                                             {"--gres=:1"},
                                             {"--gres=gpu:a:1:2"},
                                             {"--gpus-per-node=x"},
                                             {"--gpus-per-node=:2"},
                                             {"-G", "abc"}}) {
    EXPECT_EQ(ErrorOf(argv), "error: Invalid generic resource (gres) specification") << argv[0];
  }
}

TEST(SbatchCommandLineTest, Exclusive) {
  EXPECT_EQ(MustParse({}).exclusive, ExclusiveMode::kUnset);
  EXPECT_EQ(MustParse({"--exclusive"}).exclusive, ExclusiveMode::kExclusive);
  EXPECT_EQ(MustParse({"--exclusive=user"}).exclusive, ExclusiveMode::kUser);
  EXPECT_EQ(MustParse({"--exclusive=mcs"}).exclusive, ExclusiveMode::kMcs);
  EXPECT_EQ(ErrorOf({"--exclusive=foo"}), "error: Invalid --exclusive specification");
  // The value is optional, so a following word is the script, not the value.
  SbatchOptions o = MustParse({"--exclusive", "user"});
  EXPECT_EQ(o.exclusive, ExclusiveMode::kExclusive);
  EXPECT_EQ(o.script_path, "user");
}

TEST(SbatchCommandLineTest, Time) {
  EXPECT_EQ(MustParse({"-t", "90"}).time_limit, absl::Minutes(90));
  EXPECT_EQ(MustParse({"--time=1-02:00:00"}).time_limit, absl::Hours(26));
  EXPECT_EQ(MustParse({"-t1:30"}).time_limit, absl::Minutes(2));            // sbatch -v: 00:02:00
  EXPECT_EQ(MustParse({"--time=0"}).time_limit, absl::InfiniteDuration());  // UNLIMITED
  EXPECT_EQ(MustParse({"--time=UNLIMITED"}).time_limit, absl::InfiniteDuration());
  EXPECT_EQ(ErrorOf({"--time=abc"}), "error: Invalid --time specification");
  EXPECT_EQ(ErrorOf({"-t", "1:2:3:4"}), "error: Invalid --time specification");
}

TEST(SbatchCommandLineTest, Switches) {
  SbatchOptions o = MustParse({"--switches=3"});
  EXPECT_EQ(o.switches, 3);
  EXPECT_FALSE(o.switches_wait.has_value());
  o = MustParse({"--switches=2@1:00:00"});
  EXPECT_EQ(o.switches, 2);
  EXPECT_EQ(o.switches_wait, absl::Hours(1));
  EXPECT_EQ(ErrorOf({"--switches=abc"}), "error: Invalid numeric value \"abc\" for --switches.");
  EXPECT_EQ(ErrorOf({"--switches=0"}), "error: Invalid numeric value \"0\" for --switches.");
  EXPECT_EQ(ErrorOf({"--switches=-1"}), "error: Invalid numeric value \"-1\" for --switches.");
  EXPECT_EQ(ErrorOf({"--switches=2@abc"}), "error: Invalid --switches specification");
}

TEST(SbatchCommandLineTest, Signal) {
  SbatchOptions o = MustParse({"--signal=B:USR1@90"});
  ASSERT_TRUE(o.signal.has_value());
  EXPECT_EQ(o.signal->signal_number, 10);
  EXPECT_EQ(o.signal->seconds, 90);
  EXPECT_TRUE(o.signal->batch_only);
  o = MustParse({"--signal=10"});
  EXPECT_EQ(o.signal->signal_number, 10);
  EXPECT_EQ(o.signal->seconds, 60);
  EXPECT_FALSE(o.signal->batch_only);
  EXPECT_EQ(MustParse({"--signal=SIGTERM@60"}).signal->signal_number, 15);
  EXPECT_EQ(MustParse({"--signal=usr2"}).signal->signal_number, 12);
  EXPECT_EQ(MustParse({"--signal=USR1@0"}).signal->seconds, 0);
  EXPECT_EQ(MustParse({"--signal=99"}).signal->signal_number, 99);
  o = MustParse({"--signal=R:INT@5"});
  EXPECT_TRUE(o.signal->reservation);
  EXPECT_EQ(o.signal->signal_number, 2);
  for (const char* bad :
       {"FOO@10", "USR1@abc", "B:USR1@70000", "0@10", "B:@10", "X:USR1", ":USR1", "", "128"}) {
    EXPECT_EQ(ErrorOf({std::string("--signal=") + bad}), "error: Invalid --signal specification")
        << bad;
  }
}

TEST(SbatchCommandLineTest, HostlistsAreChecked) {
  SbatchOptions o = MustParse({"-w", "gpu[001-004]", "-x", "gpu003"});
  EXPECT_EQ(o.nodelist, "gpu[001-004]");
  EXPECT_EQ(o.exclude, "gpu003");
  EXPECT_THAT(ErrorOf({"-w", "n[1-"}), ::testing::StartsWith("error: Invalid --nodelist"));
  EXPECT_THAT(ErrorOf({"--exclude=n[5-1]"}), ::testing::StartsWith("error: Invalid --exclude"));
}

TEST(SbatchCommandLineTest, OpenMode) {
  EXPECT_EQ(MustParse({"--open-mode=append"}).open_mode, OpenMode::kAppend);
  EXPECT_EQ(MustParse({"--open-mode=truncate"}).open_mode, OpenMode::kTruncate);
  EXPECT_EQ(MustParse({"--open-mode=t"}).open_mode, OpenMode::kTruncate);  // as sbatch
  EXPECT_EQ(ErrorOf({"--open-mode=foo"}), "error: Invalid --open-mode specification");
}

TEST(SbatchCommandLineTest, KillOnInvalidDep) {
  EXPECT_FALSE(MustParse({}).kill_on_invalid_dep.has_value());
  EXPECT_EQ(MustParse({"--kill-on-invalid-dep=yes"}).kill_on_invalid_dep, true);
  EXPECT_EQ(MustParse({"--kill-on-invalid-dep", "NO"}).kill_on_invalid_dep, false);
  EXPECT_EQ(ErrorOf({"--kill-on-invalid-dep=maybe"}),
            "error: Invalid --kill-on-invalid-dep specification");
}

TEST(SbatchCommandLineTest, Export) {
  EXPECT_FALSE(MustParse({}).export_env.has_value());
  SbatchOptions o = MustParse({"--export=NONE"});
  EXPECT_FALSE(o.export_env->all);
  EXPECT_THAT(o.export_env->variables, IsEmpty());
  o = MustParse({"--export=ALL"});
  EXPECT_TRUE(o.export_env->all);
  o = MustParse({"--export=ALL,X=1,PATH"});
  EXPECT_TRUE(o.export_env->all);
  EXPECT_THAT(o.export_env->variables, ElementsAre("X=1", "PATH"));
  o = MustParse({"--export=A,B=1"});
  EXPECT_FALSE(o.export_env->all);
  EXPECT_THAT(o.export_env->variables, ElementsAre("A", "B=1"));
  EXPECT_FALSE(MustParse({"--export=none"}).export_env->all);
}

TEST(SbatchCommandLineTest, Flags) {
  SbatchOptions o = MustParse({"--requeue", "-H", "--parsable", "--test-only"});
  EXPECT_EQ(o.requeue, true);
  EXPECT_TRUE(o.hold);
  EXPECT_TRUE(o.parsable);
  EXPECT_TRUE(o.test_only);
  EXPECT_EQ(MustParse({"--requeue", "--no-requeue"}).requeue, false);
  EXPECT_FALSE(MustParse({}).requeue.has_value());
  EXPECT_TRUE(MustParse({"-Q"}).quiet);
  EXPECT_TRUE(MustParse({"--quiet"}).quiet);
  EXPECT_FALSE(MustParse({}).quiet);
}

TEST(SbatchCommandLineTest, ShortBundles) {
  SbatchOptions o = MustParse({"-HN2", "-Jx"});
  EXPECT_TRUE(o.hold);
  EXPECT_EQ(o.min_nodes, 2);
  EXPECT_EQ(o.job_name, "x");
}

TEST(SbatchCommandLineTest, Nice) {
  EXPECT_EQ(MustParse({"--nice"}).nice, 100);
  EXPECT_EQ(MustParse({"--nice=5"}).nice, 5);
  EXPECT_EQ(MustParse({"--nice=-5"}).nice, -5);
  EXPECT_EQ(ErrorOf({"--nice=3000000000"}),
            "error: Invalid --nice value, out of range (+/- 2147483645)");
  EXPECT_EQ(ErrorOf({"--nice=abc"}), "error: Invalid --nice value");
  SbatchOptions o = MustParse({"--nice", "5"});  // optional value: "5" is the script
  EXPECT_EQ(o.nice, 100);
  EXPECT_EQ(o.script_path, "5");
}

TEST(SbatchCommandLineTest, StopsAtScript) {
  SbatchOptions o = MustParse({"-N", "2", "job.sh", "--bogus", "-N", "5", "x"});
  EXPECT_EQ(o.min_nodes, 2);
  EXPECT_EQ(o.script_path, "job.sh");
  EXPECT_THAT(o.script_args, ElementsAre("--bogus", "-N", "5", "x"));
  o = MustParse({"-H", "--", "-script", "a"});
  EXPECT_EQ(o.script_path, "-script");
  EXPECT_THAT(o.script_args, ElementsAre("a"));
  o = MustParse({"-", "a"});
  EXPECT_EQ(o.script_path, "-");
}

TEST(SbatchCommandLineTest, GetoptErrors) {
  const std::string kTry = "\nTry \"sbatch --help\" for more information";
  EXPECT_EQ(ErrorOf({"--bogus"}), "unrecognized option '--bogus'" + kTry);
  EXPECT_EQ(ErrorOf({"--bogus=1"}), "unrecognized option '--bogus=1'" + kTry);
  EXPECT_EQ(ErrorOf({"-H", "--bogus"}), "unrecognized option '--bogus'" + kTry);
  EXPECT_EQ(ErrorOf({"-Z"}), "invalid option -- 'Z'" + kTry);
  EXPECT_EQ(ErrorOf({"-N2", "-Z", "script.sh"}), "invalid option -- 'Z'" + kTry);
  EXPECT_EQ(ErrorOf({"--time"}), "option '--time' requires an argument" + kTry);
  EXPECT_EQ(ErrorOf({"-N"}), "option requires an argument -- 'N'" + kTry);
  EXPECT_EQ(ErrorOf({"--parsable=x"}), "option '--parsable' doesn't allow an argument" + kTry);
  EXPECT_EQ(ErrorOf({"--requeue=x"}), "option '--requeue' doesn't allow an argument" + kTry);
}

TEST(SbatchCommandLineTest, UniquePrefixesAsGetoptLong) {
  // getopt_long takes any unique prefix of a long name; sbatch does too.
  SbatchOptions o = MustParse({"--part=gpu", "--job", "x", "--hol", "--ntasks-per=2"});
  EXPECT_EQ(o.partition, "gpu");
  EXPECT_EQ(o.job_name, "x");
  EXPECT_TRUE(o.hold);
  EXPECT_EQ(o.ntasks_per_node, 2);
  // Canopy's table lists fewer options than sbatch's, so fewer prefixes are ambiguous.
  EXPECT_EQ(ErrorOf({"--ex=a"}),
            "option '--ex=a' is ambiguous; possibilities: '--exclusive' '--exclude' '--export' "
            "'--export-file'\nTry \"sbatch --help\" for more information");
}

TEST(SbatchCommandLineTest, Input) {
  EXPECT_EQ(MustParse({"-i", "in.txt", "job.sh"}).input, "in.txt");
  SbatchOptions o = MustParse({"--input=in-%j", "job.sh", "-i", "arg"});
  EXPECT_EQ(o.input, "in-%j");
  EXPECT_THAT(o.script_args, ElementsAre("-i", "arg"));  // after the script: its arguments
}

TEST(SbatchDirectivesTest, StopsAtFirstCommand) {
  EXPECT_THAT(Directives("#!/bin/bash\n#SBATCH -N 2\n\n# note\n   # indented\n"
                         "#SBATCH --time=10\necho hi\n#SBATCH -p late\n"),
              ElementsAre("-N", "2", "--time=10"));
}

TEST(SbatchDirectivesTest, IndentedDirectiveIsAComment) {
  EXPECT_THAT(Directives("#!/bin/sh\n #SBATCH -p lead\n#SBATCH -n 5\n"), ElementsAre("-n", "5"));
}

TEST(SbatchDirectivesTest, NoSpaceAfterMagicWord) {
  EXPECT_THAT(Directives("#!/bin/sh\n#SBATCH--ntasks=5\n"), ElementsAre("--ntasks=5"));
  EXPECT_THAT(Directives("#!/bin/sh\n#SBATCHX\n"), ElementsAre("X"));
}

TEST(SbatchDirectivesTest, Quoting) {
  EXPECT_THAT(Directives("#!/bin/sh\n#SBATCH -J \"my job\"  --time=10\n"),
              ElementsAre("-J", "my job", "--time=10"));
  EXPECT_THAT(Directives("#!/bin/sh\n#SBATCH -J x'y z' -N 2\n"),
              ElementsAre("-J", "xy z", "-N", "2"));
  EXPECT_THAT(Directives("#!/bin/sh\n#SBATCH -o \"x y\".out\n"), ElementsAre("-o", "x y.out"));
  EXPECT_THAT(Directives("#!/bin/sh\n#SBATCH -J \"a\\\"b\"\n"), ElementsAre("-J", "a\"b"));
  EXPECT_THAT(Directives("#!/bin/sh\n#SBATCH -J \"a#b\" -p x\n"),
              ElementsAre("-J", "a#b", "-p", "x"));
  EXPECT_THAT(Directives("#!/bin/sh\n#SBATCH -p q\t-N 4\n"), ElementsAre("-p", "q", "-N", "4"));
}

TEST(SbatchDirectivesTest, Comments) {
  EXPECT_THAT(Directives("#!/bin/sh\n#SBATCH -J x  --time=10 # trailing --bogus\n"),
              ElementsAre("-J", "x", "--time=10"));
  // An unquoted '#' ends the line even inside a word ("a#b" -> "a").
  EXPECT_THAT(Directives("#!/bin/sh\n#SBATCH -J a#b --time=abc\n"), ElementsAre("-J", "a"));
  EXPECT_THAT(Directives("#!/bin/sh\n#SBATCH -J a\\#b\n"), ElementsAre("-J", "a#b"));
}

TEST(SbatchDirectivesTest, BackslashDoesNotJoinWords) {
  EXPECT_THAT(Directives("#!/bin/sh\n#SBATCH -J a\\ b\n"), ElementsAre("-J", "a", "b"));
}

TEST(SbatchDirectivesTest, EmptyWordEndsTheLine) {
  EXPECT_THAT(Directives("#!/bin/sh\n#SBATCH -J \"\" -p y\n#SBATCH -N 1\n"),
              ElementsAre("-J", "-N", "1"));
  EXPECT_THAT(Directives("#!/bin/sh\n#SBATCH\n#SBATCH    \n"), IsEmpty());
}

TEST(SbatchDirectivesTest, UnmatchedQuote) {
  absl::StatusOr<std::vector<std::string>> d =
      ExtractSbatchDirectives("#!/bin/bash\n#SBATCH -J 'a b\necho\n");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(d.status().message(), "fatal: line 2: Unmatched `'` in [ 'a b]");
}

TEST(SbatchScriptTest, CommandLineWins) {
  const std::string script =
      "#!/bin/bash\n"
      "#SBATCH -J \"my job\"  --time=10 # trailing --bogus\n"
      "#SBATCH --nodes=3 --mem=8G\n"
      "#SBATCH--ntasks=5\n"
      "#SBATCH --gres=gpu:a100:4\n"
      "srun hostname\n";
  absl::StatusOr<SbatchOptions> o =
      ParseSbatch(script, {"-N", "2", "--mem=16G", "s7.sh", "a", "b"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->job_name, "my job");
  EXPECT_EQ(o->time_limit, absl::Minutes(10));
  EXPECT_EQ(o->min_nodes, 2);
  EXPECT_EQ(o->max_nodes, 2);
  EXPECT_EQ(o->ntasks, 5);
  EXPECT_EQ(o->mem_per_node_mib, 16 * 1024);
  EXPECT_EQ(o->gpus_per_node, 4);
  EXPECT_EQ(o->gpu_type, "a100");
  EXPECT_EQ(o->script_path, "s7.sh");
  EXPECT_THAT(o->script_args, ElementsAre("a", "b"));
}

TEST(SbatchScriptTest, RangeFromDirectiveReplacedWhole) {
  absl::StatusOr<SbatchOptions> o = ParseSbatch("#!/bin/sh\n#SBATCH -N 2-4\n", {"-N", "3"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->min_nodes, 3);
  EXPECT_EQ(o->max_nodes, 3);
}

TEST(SbatchScriptTest, DirectiveValueMaySpanLines) {
  // Slurm gathers all directive words into one argument vector.
  absl::StatusOr<SbatchOptions> o = ParseSbatch("#!/bin/sh\n#SBATCH -J\n#SBATCH name\n", {});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->job_name, "name");
}

TEST(SbatchScriptTest, ScriptErrors) {
  EXPECT_EQ(ScriptErrorOf(""), "error: Batch script is empty!");
  EXPECT_EQ(ScriptErrorOf("echo hi\n"),
            "error: This does not look like a batch script.  The first\n"
            "error: line must start with #! followed by the path to an interpreter.\n"
            "error: For instance: #!/bin/sh");
  // As Slurm 22.05 answered each on this machine, in its order.
  EXPECT_EQ(ScriptErrorOf("   \n\t\r\n"), "error: Batch script contains only whitespace!");
  EXPECT_EQ(ScriptErrorOf(std::string("  \0#!/bin/sh\n", 13)),
            "error: Batch script contains only whitespace!");
  EXPECT_EQ(ScriptErrorOf(std::string("echo a\0b\n", 9)),
            "error: This does not look like a batch script.  The first\n"
            "error: line must start with #! followed by the path to an interpreter.\n"
            "error: For instance: #!/bin/sh");
  EXPECT_EQ(ScriptErrorOf(std::string("#!/bin/sh\r\necho a\0b\n", 20)),
            "error: The Slurm controller does not allow scripts that\n"
            "error: contain a NULL character '\\0'.");
  EXPECT_EQ(ScriptErrorOf("#!/bin/bash\r\necho\r\n"),
            "error: Batch script contains DOS line breaks (\\r\\n)\n"
            "error: instead of expected UNIX line breaks (\\n).");
  EXPECT_EQ(ScriptErrorOf("#!/bin/bash\n#SBATCH --bogus\necho\n"),
            "unrecognized option '--bogus'\nTry \"sbatch --help\" for more information");
  EXPECT_EQ(ScriptErrorOf("#!/bin/bash\n#SBATCH --time=abc\n"),
            "error: Invalid --time specification");
  EXPECT_EQ(ScriptErrorOf("#!/bin/bash\n#SBATCH foo.sh\n"),
            "error: Invalid directive found in batch script: foo.sh");
  EXPECT_EQ(ScriptErrorOf("#!/bin/bash\n#SBATCH -J a\\ b\n"),
            "error: Invalid directive found in batch script: b");
  EXPECT_EQ(ScriptErrorOf("#!/bin/bash\n#SBATCH -J \"\" -p y\n"),
            "option requires an argument -- 'J'\nTry \"sbatch --help\" for more information");
  EXPECT_EQ(ScriptErrorOf("#!/bin/bash\n#SBATCH -J 'a b\n"),
            "fatal: line 2: Unmatched `'` in [ 'a b]");
}

TEST(SbatchScriptTest, DirectiveAfterCommandIgnored) {
  EXPECT_EQ(ScriptErrorOf("#!/bin/bash\necho\n#SBATCH --time=abc\n"), "OK");
}

TEST(SbatchScriptTest, CommandLineErrorAfterGoodDirectives) {
  EXPECT_EQ(ScriptErrorOf("#!/bin/bash\n#SBATCH -N 2\n", {"--mem=abc"}),
            "error: Invalid --mem specification");
}

TEST(SbatchCommandLineTest, StringsThatAreRecorded) {
  SbatchOptions o =
      MustParse({"--comment=my run", "--wckey", "proj", "--mail-user=a@b.c", "--reservation=maint",
                 "--container=/oci/bundle", "--export-file=/tmp/env", "--uid=alice", "--gid", "100",
                 "--deadline=now+2hours"});
  EXPECT_EQ(o.comment, "my run");
  EXPECT_EQ(o.wckey, "proj");
  EXPECT_EQ(o.mail_user, "a@b.c");
  EXPECT_EQ(o.reservation, "maint");
  EXPECT_EQ(o.container, "/oci/bundle");
  EXPECT_EQ(o.export_file, "/tmp/env");
  EXPECT_EQ(o.uid, "alice");
  EXPECT_EQ(o.gid, "100");
  EXPECT_EQ(o.deadline, "now+2hours");
  EXPECT_EQ(ErrorOf({"--comment"}),
            "option '--comment' requires an argument\nTry \"sbatch --help\" for more information");
  EXPECT_EQ(ExitOf({"--comment"}), 255);
}

TEST(SbatchCommandLineTest, MailType) {
  EXPECT_FALSE(MustParse({}).mail_type.has_value());
  EXPECT_EQ(MustParse({"--mail-type=BEGIN,END,FAIL"}).mail_type, kMailBegin | kMailEnd | kMailFail);
  EXPECT_EQ(MailTypeString(*MustParse({"--mail-type=all"}).mail_type),
            "INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT");
  EXPECT_EQ(MustParse({"--mail-type=NONE"}).mail_type, 0);
  EXPECT_EQ(MailTypeString(*MustParse({"--mail-type=time_limit_90,ARRAY_TASKS"}).mail_type),
            "ARRAY_TASKS,TIME_LIMIT_90");
  // Repeats add up; unknown words beside known ones are skipped, as parse_mail_type does.
  EXPECT_EQ(MustParse({"--mail-type=BEGIN", "--mail-type=END"}).mail_type, kMailBegin | kMailEnd);
  EXPECT_EQ(MustParse({"--mail-type=BEGIN,bogus"}).mail_type, kMailBegin);
  for (const char* bad : {"bogus", "", ",", "BEGINS"}) {
    EXPECT_EQ(ErrorOf({std::string("--mail-type=") + bad}),
              "error: Invalid --mail-type specification")
        << bad;
    EXPECT_EQ(ExitOf({std::string("--mail-type=") + bad}), 255) << bad;
  }
}

TEST(SbatchCommandLineTest, GetUserEnvAndPropagate) {
  EXPECT_FALSE(MustParse({}).get_user_env.has_value());
  SbatchOptions o = MustParse({"--get-user-env"});
  ASSERT_TRUE(o.get_user_env.has_value());
  EXPECT_EQ(o.get_user_env->timeout, 0);
  EXPECT_EQ(o.get_user_env->mode, '\0');
  o = MustParse({"--get-user-env=10L"});
  EXPECT_EQ(o.get_user_env->timeout, 10);
  EXPECT_EQ(o.get_user_env->mode, 'L');
  EXPECT_EQ(MustParse({"--get-user-env=s"}).get_user_env->mode, 'S');
  EXPECT_EQ(MustParse({"--get-user-env=5Lxyz"}).get_user_env->mode, 'L');  // first letter only
  EXPECT_EQ(MustParse({"--get-user-env", "10"}).script_path, "10");        // optional value
  EXPECT_EQ(ErrorOf({"--get-user-env=10x"}), "error: Invalid --get-user-env specification");
  EXPECT_EQ(ExitOf({"--get-user-env=10x"}), 255);

  EXPECT_EQ(MustParse({"--propagate"}).propagate, "ALL");
  EXPECT_EQ(MustParse({"--propagate=CORE,NOFILE"}).propagate, "CORE,NOFILE");
  EXPECT_FALSE(MustParse({}).propagate.has_value());
}

TEST(SbatchCommandLineTest, GpuOptions) {
  SbatchOptions o = MustParse(
      {"--gpus-per-task=2", "--cpus-per-gpu=8", "--mem-per-gpu=16G", "--gpu-bind=closest"});
  EXPECT_EQ(o.gpus_per_task, 2);
  EXPECT_EQ(o.cpus_per_gpu, 8);
  EXPECT_EQ(o.mem_per_gpu_mib, 16 * 1024);
  EXPECT_EQ(o.gpu_bind, "closest");
  o = MustParse({"--gpus-per-task=a100:1"});
  EXPECT_EQ(o.gpus_per_task, 1);
  EXPECT_EQ(o.gpu_type, "a100");
  for (const char* bad : {"0", "x", "a100:0", ":1", "-1"}) {
    EXPECT_EQ(ErrorOf({std::string("--gpus-per-task=") + bad}),
              "error: Invalid generic resource (gres) specification")
        << bad;
    EXPECT_EQ(ExitOf({std::string("--gpus-per-task=") + bad}), 1) << bad;
  }
  EXPECT_EQ(ErrorOf({"--cpus-per-gpu=0"}),
            "error: Invalid numeric value \"0\" for --cpus-per-gpu.");
  EXPECT_EQ(ExitOf({"--cpus-per-gpu=0"}), 1);  // parse_int exits 1
  EXPECT_EQ(ErrorOf({"--mem-per-gpu=lots"}), "error: Invalid --mem-per-gpu specification");
  EXPECT_EQ(ExitOf({"--mem-per-gpu=lots"}), 255);
  for (const char* good : {"closest", "c", "none", "map_gpu:0,1", "mask_gpu:0x3,0xc",
                           "verbose,closest", "single:1", "per_task:2", "map_gpu:0*2,1"}) {
    EXPECT_EQ(MustParse({std::string("--gpu-bind=") + good}).gpu_bind, good) << good;
  }
  EXPECT_EQ(ErrorOf({"--gpu-bind=bogus"}), "error: Invalid --gpu-bind argument: gpu:bogus");
  EXPECT_EQ(ExitOf({"--gpu-bind=bogus"}), 255);
  EXPECT_EQ(ErrorOf({"--gpu-bind=map_gpu:0,x"}),
            "error: Failed to validate x, offending character is x\n"
            "error: Invalid --gpu-bind argument: gpu:map_gpu:0,x");
  EXPECT_EQ(ErrorOf({"--gpu-bind=closest;nic:closest"}),
            "error: Invalid --gpu-bind argument: gpu:closest;nic:closest");
}

TEST(SbatchCommandLineTest, MemAndMemPerGpuAreMutuallyExclusive) {
  const std::string kBoth =
      "fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.";
  EXPECT_EQ(ErrorOf({"--mem=8G", "--mem-per-gpu=4G"}), kBoth);
  EXPECT_EQ(ExitOf({"--mem=8G", "--mem-per-gpu=4G"}), 1);
  // Directives count as the command line.
  absl::StatusOr<SbatchOptions> o =
      ParseSbatch("#!/bin/sh\n#SBATCH --mem=8G\n", {"--mem-per-gpu=4G"});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(), kBoth);
  // One on the command line drops the other's variable.
  SbatchOptions env = MustParseWithEnv({{"SBATCH_MEM_PER_NODE", "8G"}}, {"--mem-per-gpu=4G"});
  EXPECT_FALSE(env.mem_per_node_mib.has_value());
  EXPECT_EQ(env.mem_per_gpu_mib, 4096);
  env = MustParseWithEnv({{"SBATCH_MEM_PER_GPU", "4G"}}, {"--mem=8G"});
  EXPECT_EQ(env.mem_per_node_mib, 8192);
  EXPECT_FALSE(env.mem_per_gpu_mib.has_value());
  absl::Status both_env = EnvErrorOf({{"SBATCH_MEM_PER_GPU", "4G"}, {"SBATCH_MEM_PER_NODE", "8G"}});
  EXPECT_EQ(both_env.message(),
            "fatal: SLURM_MEM_PER_CPU, SLURM_MEM_PER_GPU, and SLURM_MEM_PER_NODE are mutually "
            "exclusive.");
  EXPECT_EQ(ExitCodeOf(both_env), 1);
}

TEST(SbatchCommandLineTest, Distribution) {
  EXPECT_EQ(MustParse({"-m", "cyclic"}).distribution, "cyclic");
  EXPECT_EQ(MustParse({"--distribution=Block:Cyclic"}).distribution, "block:cyclic");
  EXPECT_EQ(MustParse({"-m*:*"}).distribution, "block:cyclic");
  EXPECT_EQ(MustParse({"-m", "*:block:*"}).distribution, "block:block:block");
  EXPECT_EQ(MustParse({"-m", "cyclic:block:fcyclic"}).distribution, "cyclic:block:fcyclic");
  EXPECT_EQ(MustParse({"-m", "hostfile"}).distribution, "arbitrary");
  EXPECT_EQ(MustParse({"-m", "plane=4"}).distribution, "plane=4");
  EXPECT_EQ(MustParse({"-m", "pack"}).distribution, "pack");
  EXPECT_EQ(MustParse({"-m", "block,NoPack"}).distribution, "block,nopack");
  for (const char* bad : {"bogus", "", ",pack", "block:bogus", "fcyclic", "block,foo",
                          "block:cyclic:cyclic:cyclic", "arbitrary:block"}) {
    EXPECT_EQ(ErrorOf({"-m", bad}), "error: Invalid --distribution specification") << bad;
    EXPECT_EQ(ExitOf({"-m", bad}), 255) << bad;
  }
  for (const char* bad : {"plane", "plane=0", "plane=x", "plane=4x"}) {
    EXPECT_EQ(ErrorOf({"-m", bad}),
              "error: Invalid plane size or size not specified\n"
              "error: Invalid --distribution specification")
        << bad;
  }
}

TEST(SbatchCommandLineTest, Hint) {
  EXPECT_EQ(MustParse({"--hint=nomultithread"}).hint, "nomultithread");
  EXPECT_EQ(MustParse({"--hint=compute_bound,Multithread"}).hint, "compute_bound,Multithread");
  EXPECT_EQ(MustParse({"--hint=help"}).info, InfoRequest::kHintHelp);
  EXPECT_EQ(ErrorOf({"--hint=bogus"}),
            "error: unrecognized --hint argument \"bogus\", see --hint=help");
  EXPECT_EQ(ExitOf({"--hint=bogus"}), 1);  // checked after the options, exit(error_exit)
  EXPECT_EQ(ErrorOf({"--hint=memory_bound,"}),
            "error: unrecognized --hint argument \"\", see --hint=help");
}

TEST(SbatchCommandLineTest, FlagsAndTimes) {
  EXPECT_TRUE(MustParse({"-O"}).overcommit);
  EXPECT_TRUE(MustParse({"--overcommit"}).overcommit);
  EXPECT_TRUE(MustParse({"-W"}).wait);
  EXPECT_TRUE(MustParse({"--wait"}).wait);
  EXPECT_FALSE(MustParse({}).wait);
  EXPECT_EQ(ErrorOf({"--wait=5"}),
            "option '--wait' doesn't allow an argument\nTry \"sbatch --help\" for more "
            "information");
  EXPECT_EQ(MustParse({"--delay-boot=10"}).delay_boot, absl::Minutes(10));
  EXPECT_EQ(MustParse({"--delay-boot=1:00:00"}).delay_boot, absl::Hours(1));
  EXPECT_EQ(ErrorOf({"--delay-boot=soon"}), "error: Invalid --delay-boot specification");
  EXPECT_EQ(ExitOf({"--delay-boot=soon"}), 255);
}

TEST(SbatchCommandLineTest, ExclusiveValuesAsSlurm) {
  EXPECT_EQ(MustParse({"--exclusive=exclusive"}).exclusive, ExclusiveMode::kExclusive);
  EXPECT_EQ(MustParse({"--exclusive=OverSubscribe"}).exclusive, ExclusiveMode::kOversubscribe);
  EXPECT_EQ(ExitOf({"--exclusive=foo"}), 255);
}

TEST(SbatchCommandLineTest, SrunOnlyOptionsAreUnknown) {
  // Slurm's sbatch has no --mpi or --cpu-bind (they are srun's).
  EXPECT_EQ(ErrorOf({"--mpi=pmix"}),
            "unrecognized option '--mpi=pmix'\nTry \"sbatch --help\" for more information");
  EXPECT_EQ(ErrorOf({"--cpu-bind=cores"}),
            "unrecognized option '--cpu-bind=cores'\nTry \"sbatch --help\" for more information");
}

TEST(SbatchCommandLineTest, ExitCodesAsSbatch) {
  EXPECT_EQ(ExitOf({}), 0);
  EXPECT_EQ(ExitOf({"--bogus"}), 255);
  EXPECT_EQ(ExitOf({"-N"}), 255);
  EXPECT_EQ(ExitOf({"--time=abc"}), 255);
  EXPECT_EQ(ExitOf({"-N", "abc"}), 255);
  EXPECT_EQ(ExitOf({"--mem=abc"}), 255);
  EXPECT_EQ(ExitOf({"--signal=FOO"}), 255);
  EXPECT_EQ(ExitOf({"--open-mode=x"}), 255);
  EXPECT_EQ(ExitOf({"-c", "abc"}), 1);  // parse_int
  EXPECT_EQ(ExitOf({"--switches=0"}), 1);
  EXPECT_EQ(ExitOf({"--gres=gpu:a100:x"}), 1);  // found when the request is built
  EXPECT_EQ(ExitCodeOf(ParseSbatch("#!/bin/sh\n#SBATCH foo.sh\n", {}).status()), 255);
  EXPECT_EQ(ExitCodeOf(ParseSbatch("", {}).status()), 1);
  EXPECT_EQ(ExitCodeOf(ParseSbatch("#!/bin/sh\n#SBATCH -J 'a\n", {}).status()), 1);
}

TEST(SbatchFirstPassTest, HelpUsageVersion) {
  EXPECT_EQ(FindSbatchInfoRequest({}).value(), InfoRequest::kNone);
  EXPECT_EQ(FindSbatchInfoRequest({"--help"}).value(), InfoRequest::kHelp);
  EXPECT_EQ(FindSbatchInfoRequest({"-h"}).value(), InfoRequest::kHelp);
  EXPECT_EQ(FindSbatchInfoRequest({"--usage"}).value(), InfoRequest::kUsage);
  EXPECT_EQ(FindSbatchInfoRequest({"-V"}).value(), InfoRequest::kVersion);
  EXPECT_EQ(FindSbatchInfoRequest({"--version"}).value(), InfoRequest::kVersion);
  // Values are not looked at in the first pass; the first request wins.
  EXPECT_EQ(FindSbatchInfoRequest({"--time=abc", "-V", "--help"}).value(), InfoRequest::kVersion);
  EXPECT_EQ(FindSbatchInfoRequest({"-HV"}).value(), InfoRequest::kVersion);
  EXPECT_EQ(FindSbatchInfoRequest({"job.sh", "--help"}).value(), InfoRequest::kNone);
  EXPECT_EQ(FindSbatchInfoRequest({"--bogus", "--help"}).status().message(),
            "unrecognized option '--bogus'\nTry \"sbatch --help\" for more information");
  // In the second pass (and in directives) they do nothing.
  EXPECT_EQ(MustParse({"--help", "job.sh"}).script_path, "job.sh");
  EXPECT_EQ(ScriptErrorOf("#!/bin/sh\n#SBATCH --help\n"), "OK");
}

TEST(SbatchEnvironmentTest, VariablesSitBetweenDirectivesAndCommandLine) {
  const std::string script = "#!/bin/sh\n#SBATCH -A fromscript --time=10\n";
  SbatchOptions o =
      MustParseWithEnv({{"SBATCH_ACCOUNT", "fromenv"}, {"SBATCH_PARTITION", "gpu"}}, {}, script);
  EXPECT_EQ(o.account, "fromenv");
  EXPECT_EQ(o.partition, "gpu");
  EXPECT_EQ(o.time_limit, absl::Minutes(10));
  o = MustParseWithEnv({{"SBATCH_ACCOUNT", "fromenv"}}, {"-A", "cli"}, script);
  EXPECT_EQ(o.account, "cli");
}

TEST(SbatchEnvironmentTest, EachVariable) {
  SbatchOptions o = MustParseWithEnv({
      {"SBATCH_ARRAY_INX", "0-3"},
      {"SBATCH_CONTAINER", "/oci"},
      {"SBATCH_CPUS_PER_GPU", "4"},
      {"SBATCH_DELAY_BOOT", "5"},
      {"SBATCH_DISTRIBUTION", "cyclic"},
      {"SBATCH_EXPORT", "NONE"},
      {"SBATCH_GPU_BIND", "closest"},
      {"SBATCH_GPUS_PER_TASK", "1"},
      {"SBATCH_JOB_NAME", "envname"},
      {"SBATCH_OPEN_MODE", "append"},
      {"SBATCH_QOS", "high"},
      {"SBATCH_RESERVATION", "maint"},
      {"SBATCH_SIGNAL", "USR1@30"},
      {"SBATCH_TIMELIMIT", "1:00:00"},
      {"SBATCH_WCKEY", "proj"},
      {"SBATCH_ERROR", "e.txt"},
      {"SBATCH_INPUT", "i.txt"},
      {"SBATCH_OUTPUT", "o.txt"},
      {"SBATCH_REQ_SWITCH", "2"},
      {"SBATCH_WAIT4SWITCH", "10:00"},
      {"SBATCH_GRES", "gpu:2"},
  });
  EXPECT_EQ(o.array, "0-3");
  EXPECT_EQ(o.container, "/oci");
  EXPECT_EQ(o.cpus_per_gpu, 4);
  EXPECT_EQ(o.delay_boot, absl::Minutes(5));
  EXPECT_EQ(o.distribution, "cyclic");
  EXPECT_FALSE(o.export_env->all);
  EXPECT_EQ(o.gpu_bind, "closest");
  EXPECT_EQ(o.gpus_per_task, 1);
  EXPECT_EQ(o.job_name, "envname");
  EXPECT_EQ(o.open_mode, OpenMode::kAppend);
  EXPECT_EQ(o.qos, "high");
  EXPECT_EQ(o.reservation, "maint");
  EXPECT_EQ(o.signal->seconds, 30);
  EXPECT_EQ(o.time_limit, absl::Hours(1));
  EXPECT_EQ(o.wckey, "proj");
  EXPECT_EQ(o.error, "e.txt");
  EXPECT_EQ(o.input, "i.txt");
  EXPECT_EQ(o.output, "o.txt");
  EXPECT_EQ(o.switches, 2);
  EXPECT_EQ(o.switches_wait, absl::Minutes(10));
  EXPECT_EQ(o.gpus_per_node, 2);
  EXPECT_EQ(MustParseWithEnv({{"SBATCH_GPUS", "4"}}).gpus_total, 4);
  EXPECT_EQ(MustParseWithEnv({{"SBATCH_GPUS_PER_NODE", "h100:8"}}).gpu_type, "h100");
  EXPECT_EQ(MustParseWithEnv({{"SBATCH_MEM_PER_GPU", "1G"}}).mem_per_gpu_mib, 1024);
  EXPECT_EQ(MustParseWithEnv({{"SBATCH_MEM_PER_NODE", "2G"}}).mem_per_node_mib, 2048);
  // SBATCH_HINT is read after SLURM_HINT.
  EXPECT_EQ(
      MustParseWithEnv({{"SLURM_HINT", "compute_bound"}, {"SBATCH_HINT", "nomultithread"}}).hint,
      "nomultithread");
}

TEST(SbatchEnvironmentTest, FlagsAndOptionalValues) {
  EXPECT_EQ(MustParseWithEnv({{"SBATCH_REQUEUE", ""}}).requeue, true);
  EXPECT_EQ(MustParseWithEnv({{"SBATCH_NO_REQUEUE", "yes"}}).requeue, false);
  EXPECT_TRUE(MustParseWithEnv({{"SBATCH_OVERCOMMIT", "1"}}).overcommit);
  EXPECT_TRUE(MustParseWithEnv({{"SBATCH_WAIT", "YES"}}).wait);
  EXPECT_FALSE(MustParseWithEnv({{"SBATCH_WAIT", "no"}}).wait);
  // Any other value unsets the flag, even one a directive set.
  SbatchOptions o =
      MustParseWithEnv({{"SBATCH_REQUEUE", "0"}}, {}, "#!/bin/sh\n#SBATCH --requeue\n");
  EXPECT_FALSE(o.requeue.has_value());
  EXPECT_EQ(MustParseWithEnv({{"SBATCH_EXCLUSIVE", ""}}).exclusive, ExclusiveMode::kExclusive);
  EXPECT_EQ(MustParseWithEnv({{"SBATCH_EXCLUSIVE", "user"}}).exclusive, ExclusiveMode::kUser);
  EXPECT_EQ(MustParseWithEnv({{"SBATCH_GET_USER_ENV", ""}}).get_user_env->timeout, 0);
  EXPECT_EQ(MustParseWithEnv({{"SBATCH_GET_USER_ENV", "30"}}).get_user_env->timeout, 30);
  // Variables of options Canopy lacks, and unknown ones, change nothing.
  EXPECT_EQ(MustParseWithEnv({{"SBATCH_CONSTRAINT", "a100"}, {"SBATCH_BOGUS", "x"}}).account, "");
}

TEST(SbatchEnvironmentTest, BadValuesAreTheOptionsErrors) {
  absl::Status s = EnvErrorOf({{"SBATCH_TIMELIMIT", "abc"}});
  EXPECT_EQ(s.message(), "error: Invalid --time specification");
  EXPECT_EQ(ExitCodeOf(s), 255);
  s = EnvErrorOf({{"SBATCH_CPUS_PER_GPU", "0"}});
  EXPECT_EQ(s.message(), "error: Invalid numeric value \"0\" for --cpus-per-gpu.");
  EXPECT_EQ(ExitCodeOf(s), 1);
  EXPECT_EQ(EnvErrorOf({{"SBATCH_REQ_SWITCH", "x"}}).message(),
            "error: Invalid numeric value \"x\" for --switches.");
  EXPECT_EQ(EnvErrorOf({{"SLURM_HINT", "bogus"}}).message(),
            "error: unrecognized --hint argument \"bogus\", see --hint=help");
  // The command line still wins over a good variable; a bad one fails before it is read.
  EXPECT_FALSE(EnvErrorOf({{"SBATCH_TIMELIMIT", "abc"}}, {"--time=10"}).ok());
}

}  // namespace
}  // namespace canopy::slurm
