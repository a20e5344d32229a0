#include "ctl/squeue/options.h"

#include "ctl/squeue/rows.h"
#include "gmock/gmock.h"
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

// canopyd filters by state only where it leaves out nothing squeue would show.
TEST(SqueueOptionsTest, TheRequestAsksOnlyForStatesSqueueWouldShow) {
  using ::testing::ElementsAre;
  auto states = [](std::vector<std::string> args) {
    const canopy::v1::ListJobsRequest request = ListRequest(*ParseSqueueArgs(args));
    EXPECT_TRUE(request.job_ids().empty());
    return std::vector<int>(request.states().begin(), request.states().end());
  };
  EXPECT_THAT(states({}),
              ElementsAre(canopy::v1::JOB_STATE_PENDING, canopy::v1::JOB_STATE_CONFIGURING,
                          canopy::v1::JOB_STATE_RUNNING, canopy::v1::JOB_STATE_COMPLETING));
  EXPECT_THAT(states({"-u", "alice", "-p", "gpu"}).size(), 4u);
  EXPECT_THAT(states({"--start"}), ElementsAre(canopy::v1::JOB_STATE_PENDING));
  EXPECT_THAT(states({"-t", "R,PD"}),
              ElementsAre(canopy::v1::JOB_STATE_RUNNING, canopy::v1::JOB_STATE_PENDING));
  // Finished jobs: all of them, filtered here (MinJobAge applies as for the default list).
  EXPECT_TRUE(states({"-t", "CD"}).empty());
  EXPECT_TRUE(states({"-t", "R,CD"}).empty());
  EXPECT_TRUE(states({"-t", "all"}).empty());
  // -j shows finished jobs too, and "5" matches every task of array 5.
  EXPECT_TRUE(states({"-j", "5"}).empty());
}

// canopyd folds an array's pending tasks into one record only where squeue would show them as
// one row whatever the filters: not with -r, --start, -s or --json, and not with a filter that
// could tell one task from another.
TEST(SqueueOptionsTest, PendingArraysAreFoldedByCanopydOnlyWhereNoFilterTellsTasksApart) {
  auto folds = [](std::vector<std::string> args) {
    absl::StatusOr<SqueueOptions> o = ParseSqueueArgs(args);
    EXPECT_TRUE(o.ok()) << o.status();
    return ListRequest(*o).fold_pending_array_tasks();
  };
  EXPECT_TRUE(folds({}));
  EXPECT_TRUE(folds({"-u", "root", "-t", "PD", "-l", "-S", "i"}));
  EXPECT_TRUE(folds({"-o", "%i %K"}));
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"-r"},
                                             {"--start"},
                                             {"-s"},
                                             {"--json"},
                                             {"-j", "5"},
                                             {"-A", "a"},
                                             {"-n", "x"},
                                             {"-p", "gpu"},
                                             {"-q", "normal"},
                                             {"-w", "gpu001"}}) {
    EXPECT_FALSE(folds(args)) << args[0];
  }
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
  EXPECT_EQ(o->format_long, "jobid,qos:.8");
  EXPECT_EQ(ParseSqueueArgs({"--Fo", "qos"})->format_long, "qos");  // a unique prefix
  // Unknown names are squeue's warnings at output time, not parse errors.
  EXPECT_TRUE(ParseSqueueArgs({"-O", "qos,bogus"}).ok());
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
  // As Slurm 22.05's squeue answered both.
  EXPECT_EQ(ParseSqueueArgs({"--us"}).status().message(),
            std::string("option '--us' is ambiguous; possibilities: '--usage' '--user' '--users'") +
                kTry);
  EXPECT_EQ(ParseSqueueArgs({"--use"}).status().message(),
            std::string("option '--user' requires an argument") + kTry);
  EXPECT_EQ(ParseSqueueArgs({"--long=1"}).status().message(),
            std::string("option '--long' doesn't allow an argument") + kTry);
}

TEST(SqueueOptionsTest, FiltersInEveryForm) {
  absl::StatusOr<SqueueOptions> o =
      ParseSqueueArgs({"-A", "ml,cv", "--name=a,b", "-q", "high", "--qos=low", "-w", "gpu[001-002]",
                       "--partitions=gpu", "-n", "x"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->accounts, (std::vector<std::string>{"ml", "cv"}));
  EXPECT_EQ(o->names, (std::vector<std::string>{"x"}));  // the last one given
  EXPECT_EQ(o->qos, (std::vector<std::string>{"low"}));
  EXPECT_EQ(o->nodes, (std::vector<std::string>{"gpu001", "gpu002"}));
  EXPECT_EQ(o->partitions, (std::vector<std::string>{"gpu"}));
  EXPECT_EQ(ParseSqueueArgs({"--accounts=x"})->accounts, (std::vector<std::string>{"x"}));
  EXPECT_EQ(ParseSqueueArgs({"-w", "bad["}).status().message(), "error: Invalid node name bad[");
}

TEST(SqueueOptionsTest, UsersAndMe) {
  SqueueEnvironment env;
  env.uid = 1000;
  env.lookup_user = [](const std::string& name) -> std::optional<uint32_t> {
    if (name == "alice") {
      return 1001;
    }
    return std::nullopt;
  };
  absl::StatusOr<SqueueOptions> o = ParseSqueueArgs({"--me"}, env);
  EXPECT_EQ(o->user_ids, (std::vector<uint32_t>{1000}));
  o = ParseSqueueArgs({"-u", "alice,nobody"}, env);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->user_ids, (std::vector<uint32_t>{1001}));
  // squeue reports an unknown user and goes on (then lists no job if none is left).
  EXPECT_EQ(o->warnings, (std::vector<std::string>{"squeue: error: Invalid user: nobody\n\n"}));
  o = ParseSqueueArgs({"--user=nobody"}, env);
  EXPECT_EQ(o->user_ids, (std::vector<uint32_t>{UINT32_MAX}));
}

TEST(SqueueOptionsTest, StatesAndBadStates) {
  EXPECT_TRUE(ParseSqueueArgs({"-t", "all"})->all_states);
  EXPECT_EQ(ParseSqueueArgs({"--states=pd,R,CG"})->states.size(), 3u);
  // Slurm states Canopy never has are accepted and match nothing.
  EXPECT_EQ(ParseSqueueArgs({"-t", "SUSPENDED"})->states,
            (std::vector<canopy::v1::JobState>{canopy::v1::JOB_STATE_UNSPECIFIED}));
  EXPECT_EQ(ParseSqueueArgs({"-t", "R,bogus"}).status().message(),
            "error: Invalid job state specified: bogus\n"
            "error: Valid job states include: PENDING,RUNNING,SUSPENDED,COMPLETED,CANCELLED,"
            "FAILED,TIMEOUT,NODE_FAIL,PREEMPTED,BOOT_FAIL,DEADLINE,OUT_OF_MEMORY,COMPLETING,"
            "CONFIGURING,RESIZING,RESV_DEL_HOLD,REQUEUED,REQUEUE_FED,REQUEUE_HOLD,REVOKED,"
            "SIGNALING,SPECIAL_EXIT,STAGE_OUT,STOPPED");
}

TEST(SqueueOptionsTest, Steps) {
  absl::StatusOr<SqueueOptions> o = ParseSqueueArgs({"-s"});
  EXPECT_TRUE(o->steps);
  EXPECT_TRUE(o->step_list.empty());
  o = ParseSqueueArgs({"-s", "5.1,4_2.0"});  // the list from the first operand
  ASSERT_TRUE(o.ok()) << o.status();
  ASSERT_EQ(o->step_list.size(), 2u);
  EXPECT_EQ(o->step_list[0].job_id, 5u);
  EXPECT_EQ(o->step_list[0].step_id, 1u);
  EXPECT_EQ(o->step_list[1].job_id, 4u);
  EXPECT_EQ(*o->step_list[1].array_task, 2u);
  EXPECT_EQ(ParseSqueueArgs({"--steps=7.batch"})->step_list[0].step_id, 0u);
  // -j and -s both bare: the jobs take the first operand, the steps the second.
  o = ParseSqueueArgs({"-s", "-j", "1", "1.0"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->jobs, (std::vector<std::string>{"1"}));
  EXPECT_EQ(o->step_list.size(), 1u);
  EXPECT_EQ(ParseSqueueArgs({"-s", "1"}).status().message(), "error: Invalid job_step id: 1.??");
  EXPECT_EQ(ParseSqueueArgs({"-s", "x"}).status().message(), "error: Invalid job_step id: x.??");
  EXPECT_EQ(ParseSqueueArgs({"-s", "x.1"}).status().message(), "error: Invalid job_step id: x.1");
}

TEST(SqueueOptionsTest, IterateSortAndSwitches) {
  EXPECT_EQ(ParseSqueueArgs({"-i", "5"})->iterate_seconds, 5);
  EXPECT_EQ(ParseSqueueArgs({"--iterate=2x"})->iterate_seconds, 2);  // atoi, as squeue
  for (const char* bad : {"0", "x", "-1"}) {
    EXPECT_EQ(ParseSqueueArgs({"-i", bad}).status().message(),
              std::string("error: --iterate=") + bad);
  }
  EXPECT_EQ(ParseSqueueArgs({"-S", "-t,i"})->sort, "-t,i");
  EXPECT_EQ(ParseSqueueArgs({"--sort=P"})->sort, "P");
  absl::StatusOr<SqueueOptions> o =
      ParseSqueueArgs({"--json", "--noconvert", "-a", "-v", "--hide", "-M", "c1", "-L", "lic", "-R",
                       "resv", "-P", "--local", "--federation", "--sibling", "--array-unique"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->json);
  EXPECT_TRUE(o->noconvert);
  EXPECT_EQ(ParseSqueueArgs({"--yaml"}).status().message(),
            std::string("unrecognized option '--yaml'") + kTry);
}

TEST(SqueueOptionsTest, FormatConflicts) {
  EXPECT_EQ(ParseSqueueArgs({"-l", "-o", "%i"}).status().message(),
            "fatal: Options -o(--format) and -l(--long) are mutually exclusive. Please remove "
            "one and retry.");
  EXPECT_EQ(ParseSqueueArgs({"-o", "%i", "-l"}).status().message(),
            ParseSqueueArgs({"-l", "-o", "%i"}).status().message());
  EXPECT_TRUE(ParseSqueueArgs({"-l", "-O", "jobid"}).ok());
}

TEST(SqueueOptionsTest, EnvironmentDefaults) {
  SqueueEnvironment env;
  env.squeue_format = "%i %j";
  env.squeue_sort = "-i";
  absl::StatusOr<SqueueOptions> o = ParseSqueueArgs({}, env);
  EXPECT_EQ(o->format, "%i %j");
  EXPECT_EQ(o->sort, "-i");
  // The command line wins.
  o = ParseSqueueArgs({"-O", "jobid", "-S", "P"}, env);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->format, "");
  EXPECT_EQ(o->format_long, "jobid");
  EXPECT_EQ(o->sort, "P");
  SqueueEnvironment env2;
  env2.squeue_format2 = "jobid:5,name";
  EXPECT_EQ(ParseSqueueArgs({}, env2)->format_long, "jobid:5,name");
}

// The SQUEUE_* filters, each the default of its option as in Slurm 22.05's squeue.
TEST(SqueueOptionsTest, EnvironmentFilters) {
  SqueueEnvironment env;
  env.uid = 1000;
  env.lookup_user = [](const std::string& name) -> std::optional<uint32_t> {
    return name == "alice" ? std::optional<uint32_t>(1001) : std::nullopt;
  };
  env.squeue_account = "vision,nlp";
  env.squeue_names = "train";
  env.squeue_partition = "gpu";
  env.squeue_qos = "high";
  env.squeue_states = "all";
  env.squeue_users = "alice";
  env.squeue_array = true;
  absl::StatusOr<SqueueOptions> o = ParseSqueueArgs({}, env);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->accounts, (std::vector<std::string>{"vision", "nlp"}));
  EXPECT_EQ(o->names, (std::vector<std::string>{"train"}));
  EXPECT_EQ(o->partitions, (std::vector<std::string>{"gpu"}));
  EXPECT_EQ(o->qos, (std::vector<std::string>{"high"}));
  EXPECT_TRUE(o->all_states);
  EXPECT_EQ(o->user_ids, (std::vector<uint32_t>{1001}));
  EXPECT_TRUE(o->expand_arrays);
  // The command line replaces each, the states and users included.
  o = ParseSqueueArgs({"-A", "x", "-p", "cpu", "-t", "R", "--me"}, env);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->accounts, (std::vector<std::string>{"x"}));
  EXPECT_EQ(o->partitions, (std::vector<std::string>{"cpu"}));
  EXPECT_FALSE(o->all_states);
  EXPECT_EQ(o->states, (std::vector<canopy::v1::JobState>{canopy::v1::JOB_STATE_RUNNING}));
  EXPECT_EQ(o->user_ids, (std::vector<uint32_t>{1000}));
  // An unknown user in SQUEUE_USERS is reported and leaves nothing to list, as with -u.
  SqueueEnvironment nobody = env;
  nobody.squeue_users = "nosuchuser";
  o = ParseSqueueArgs({}, nobody);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->warnings, (std::vector<std::string>{"squeue: error: Invalid user: nosuchuser\n\n"}));
  EXPECT_EQ(o->user_ids, (std::vector<uint32_t>{UINT32_MAX}));
  // A bad SQUEUE_STATES is -t's error, unless -t replaces it; an unknown user in SQUEUE_USERS
  // is not reported when -u replaces it.
  SqueueEnvironment bad = nobody;
  bad.squeue_states = "bogus";
  EXPECT_THAT(std::string(ParseSqueueArgs({}, bad).status().message()),
              ::testing::StartsWith("error: Invalid job state specified: bogus\n"));
  o = ParseSqueueArgs({"-t", "R", "-u", "alice"}, bad);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->states, (std::vector<canopy::v1::JobState>{canopy::v1::JOB_STATE_RUNNING}));
  EXPECT_EQ(o->user_ids, (std::vector<uint32_t>{1001}));
  EXPECT_TRUE(o->warnings.empty());
}

TEST(SqueueOptionsTest, InfoRequestsStopTheParse) {
  EXPECT_EQ(ParseSqueueArgs({"--help"})->info, InfoRequest::kHelp);
  EXPECT_EQ(ParseSqueueArgs({"--usage", "-V"})->info, InfoRequest::kUsage);
  EXPECT_EQ(ParseSqueueArgs({"-V", "--help"})->info, InfoRequest::kVersion);
  EXPECT_EQ(ParseSqueueArgs({"-V", "--bogus"})->info, InfoRequest::kVersion);
  EXPECT_FALSE(ParseSqueueArgs({"--bogus", "-V"}).ok());
}

}  // namespace
}  // namespace canopy::ctl::squeue
