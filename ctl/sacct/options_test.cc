#include "ctl/sacct/options.h"

#include "absl/time/civil_time.h"
#include "ctl/sacct/render.h"
#include "ctl/sacct/test_cluster.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::ctl::sacct {
namespace {

using ::testing::ElementsAre;
using testing::RecordedAt;
using testing::ReferenceEnvironment;

absl::StatusOr<SacctOptions> Parse(const std::vector<std::string>& args,
                                   SacctEnvironment env = ReferenceEnvironment()) {
  return ParseSacctArgs(args, env);
}

std::string Error(const std::vector<std::string>& args,
                  SacctEnvironment env = ReferenceEnvironment()) {
  absl::StatusOr<SacctOptions> o = Parse(args, env);
  EXPECT_FALSE(o.ok());
  return o.ok() ? "" : std::string(o.status().message());
}

std::vector<std::string> Headers(const SacctOptions& o) {
  std::vector<std::string> names;
  for (const FieldColumn& c : o.columns) {
    names.emplace_back(c.field->name);
  }
  return names;
}

SacctEnvironment User(uint32_t uid) {
  SacctEnvironment env = ReferenceEnvironment();
  env.uid = uid;
  return env;
}

absl::Time Utc(int y, int mo, int d, int h, int mi, int s) {
  return absl::FromCivil(absl::CivilSecond(y, mo, d, h, mi, s), absl::UTCTimeZone());
}

TEST(SacctOptionsTest, Defaults) {
  absl::StatusOr<SacctOptions> o = Parse({}, User(1000));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_THAT(Headers(*o), ElementsAre("JobID", "JobName", "Partition", "Account", "AllocCPUS",
                                       "State", "ExitCode"));
  EXPECT_EQ(o->mode, output::FieldsMode::kTable);
  EXPECT_EQ(o->start, Utc(2026, 12, 3, 0, 0, 0));  // 00:00 today
  EXPECT_FALSE(o->end.has_value());
  EXPECT_FALSE(o->all_users);  // a user sees its own jobs: canopyd decides
  EXPECT_TRUE(o->user_ids.empty());
  const canopy::v1::ListAccountingRequest request = AccountingRequest(*o);
  EXPECT_TRUE(request.include_steps());
  EXPECT_FALSE(request.all_users());
  EXPECT_EQ(request.window_start().seconds(), absl::ToUnixSeconds(*o->start));
  EXPECT_FALSE(request.has_window_end());
}

TEST(SacctOptionsTest, RootSeesEveryone) {
  EXPECT_TRUE(Parse({}, User(0))->all_users);
  // ... unless it names users.
  absl::StatusOr<SacctOptions> o = Parse({"-u", "alice"}, User(0));
  EXPECT_FALSE(o->all_users);
  EXPECT_THAT(o->user_ids, ElementsAre(1000));
}

TEST(SacctOptionsTest, Users) {
  absl::StatusOr<SacctOptions> o = Parse({"--user=alice,42,root"}, User(1000));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_THAT(o->user_ids, ElementsAre(1000, 42, 0));
  EXPECT_THAT(Parse({"--uid", "7"}, User(1000))->user_ids, ElementsAre(7));
  EXPECT_TRUE(Parse({"-u", "-1"}, User(1000))->all_users);
  EXPECT_TRUE(Parse({"-a"}, User(1000))->all_users);
  EXPECT_TRUE(Parse({"--allusers"}, User(1000))->all_users);
  // The last of -a and -u wins, as in sacct.
  EXPECT_TRUE(Parse({"-u", "alice", "-a"}, User(1000))->user_ids.empty());
  EXPECT_THAT(Parse({"-a", "-u", "alice"}, User(1000))->user_ids, ElementsAre(1000));
  EXPECT_EQ(Error({"-u", "nobody_here"}), "sacct: error: Invalid user id: nobody_here");
  // -j and -N without -u: every user's jobs.
  EXPECT_TRUE(Parse({"-j", "5"}, User(1000))->all_users);
  EXPECT_TRUE(Parse({"-N", "gpu001"}, User(1000))->all_users);
  EXPECT_FALSE(Parse({"-j", "5", "-u", "alice"}, User(1000))->all_users);
}

TEST(SacctOptionsTest, Jobs) {
  absl::StatusOr<SacctOptions> o = Parse({"-j", "1211,1214_2,1211.batch,1211.0,7_3.extern"});
  ASSERT_TRUE(o.ok()) << o.status();
  ASSERT_EQ(o->jobs.size(), 5u);
  EXPECT_EQ(o->jobs[0].job_id, 1211u);
  EXPECT_FALSE(o->jobs[0].array_task.has_value());
  EXPECT_FALSE(o->jobs[0].step.has_value());
  EXPECT_EQ(o->jobs[1].job_id, 1214u);
  EXPECT_EQ(o->jobs[1].array_task, 2u);
  EXPECT_EQ(o->jobs[2].step, "batch");
  EXPECT_EQ(o->jobs[3].step, "0");
  EXPECT_EQ(o->jobs[4].job_id, 7u);
  EXPECT_EQ(o->jobs[4].array_task, 3u);
  EXPECT_EQ(o->jobs[4].step, "extern");
  // With -j and no -S the window is unbounded.
  EXPECT_FALSE(o->start.has_value());
  EXPECT_EQ(Parse({"--jobs=5", "--jobs", "6"})->jobs.size(), 2u);

  const canopy::v1::ListAccountingRequest request = AccountingRequest(*o);
  EXPECT_THAT(request.job_ids(), ElementsAre(1211));
  ASSERT_EQ(request.array_tasks_size(), 2);
  EXPECT_EQ(request.array_tasks(0).array_job_id(), 1214u);
  EXPECT_EQ(request.array_tasks(0).array_task_id(), 2u);
  EXPECT_FALSE(request.has_window_start());

  EXPECT_EQ(Error({"-j", "abc"}), "sacct: fatal: Bad job/step specified: abc");
  EXPECT_EQ(Error({"-j", "5,x1"}), "sacct: fatal: Bad job/step specified: x1");
  EXPECT_EQ(Error({"-j", "5.foo"}), "sacct: fatal: Bad step specified: 5");
  EXPECT_EQ(Error({"-j", "5_x"}), "sacct: fatal: Bad job array element specified: 5");
}

TEST(SacctOptionsTest, Formats) {
  absl::StatusOr<SacctOptions> o = Parse({"-o", "jobidraw,STATE%-20,nnodes", "--format=reason"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_THAT(Headers(*o), ElementsAre("JobIDRaw", "State", "NNodes", "Reason"));
  EXPECT_EQ(o->columns[1].width, -20);
  EXPECT_EQ(o->columns[0].width, -12);
  // A prefix names the first field it begins; "a" is a prefix of ALL.
  EXPECT_THAT(Headers(*Parse({"-o", "jobn,tresusageinmaxn, elap"})),
              ElementsAre("JobName", "TRESUsageInMaxNode", "Elapsed"));
  EXPECT_EQ(Parse({"-o", "a"})->columns.size(), AllFields().size());
  EXPECT_EQ(Parse({"--fields=ALL"})->columns.size(), AllFields().size());
  // A width belongs to the field: the last one given applies to every column of it.
  absl::StatusOr<SacctOptions> twice = Parse({"-o", "JobID%5,State,JobID%30"});
  EXPECT_EQ(twice->columns[0].width, 30);
  EXPECT_EQ(twice->columns[2].width, 30);
  EXPECT_EQ(Error({"-o", "JobID,Bogus"}), "sacct: error: Invalid field requested: \"Bogus\"");
  EXPECT_EQ(Error({"-o", "JobIDX"}), "sacct: error: Invalid field requested: \"JobIDX\"");

  EXPECT_THAT(Headers(*Parse({"-b"})), ElementsAre("JobID", "State", "ExitCode"));
  EXPECT_THAT(Headers(*Parse({"--brief", "-c"})), ElementsAre("JobID", "UID", "State"));
  EXPECT_THAT(Headers(*Parse({"-c"})), ElementsAre("JobID", "UID", "JobName", "Partition", "NNodes",
                                                   "NodeList", "State", "End"));
  EXPECT_THAT(Headers(*Parse({"-c", "-l"})),
              ElementsAre("JobID", "UID", "JobName", "Partition", "NNodes", "NodeList", "State",
                          "Start", "End", "Timelimit"));
  EXPECT_EQ(Parse({"-l"})->columns.size(), 54u);
  // -o first, then -b's fields.
  EXPECT_THAT(Headers(*Parse({"-b", "-o", "User"})),
              ElementsAre("User", "JobID", "State", "ExitCode"));
}

TEST(SacctOptionsTest, SacctFormatIsUsedWithoutFormatOptions) {
  SacctEnvironment env = ReferenceEnvironment();
  env.sacct_format = "JobID%20,User";
  absl::StatusOr<SacctOptions> o = Parse({}, env);
  EXPECT_THAT(Headers(*o), ElementsAre("JobID", "User"));
  EXPECT_EQ(o->columns[0].width, 20);
  EXPECT_THAT(Headers(*Parse({"-o", "State"}, env)), ElementsAre("State"));
  EXPECT_THAT(Headers(*Parse({"-b"}, env)), ElementsAre("JobID", "State", "ExitCode"));
  env.sacct_format = "Nope";
  EXPECT_EQ(Error({}, env), "sacct: error: Invalid field requested: \"Nope\"");
}

TEST(SacctOptionsTest, OutputModes) {
  EXPECT_EQ(Parse({"-p"})->mode, output::FieldsMode::kParsable);
  EXPECT_EQ(Parse({"--parsable2"})->mode, output::FieldsMode::kParsable2);
  EXPECT_EQ(Parse({"-P", "-p"})->mode, output::FieldsMode::kParsable);
  EXPECT_EQ(Parse({"--delimiter", ","})->delimiter, ",");
  EXPECT_TRUE(Parse({"-n"})->no_header);
  EXPECT_TRUE(Parse({"--noheader"})->no_header);
  EXPECT_TRUE(Parse({"--json"})->json);
  EXPECT_TRUE(Parse({"--noconvert"})->noconvert);
}

TEST(SacctOptionsTest, SelectionFilters) {
  absl::StatusOr<SacctOptions> o =
      Parse({"-X", "-D", "-A", "nlp,vision", "--partition=gpu", "-q", "normal,high",
             "--name=train4,arr", "-N", "gpu[001-002]", "-r", "cpu", "-t"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->allocations);
  EXPECT_TRUE(o->duplicates);
  const canopy::v1::ListAccountingRequest request = AccountingRequest(*o);
  EXPECT_THAT(request.accounts(), ElementsAre("nlp", "vision"));
  EXPECT_THAT(request.partitions(), ElementsAre("gpu", "cpu"));
  EXPECT_THAT(request.qos(), ElementsAre("normal", "high"));
  EXPECT_THAT(request.job_names(), ElementsAre("train4", "arr"));
  EXPECT_THAT(request.nodes(), ElementsAre("gpu001", "gpu002"));
  EXPECT_FALSE(request.include_steps());
  EXPECT_TRUE(request.duplicates());
  EXPECT_FALSE(AccountingRequest(*Parse({"-c"})).include_steps());
  // Options for other clusters and statistics are accepted and change nothing.
  EXPECT_TRUE(Parse({"-L", "-M", "anchor", "--local", "--federation", "-T", "-v"}).ok());
}

TEST(SacctOptionsTest, States) {
  absl::StatusOr<SacctOptions> o = Parse({"-s", "CA,f,Timeout,NF,oom,RQ,PR,CG,pd,R,cd,CF"});
  ASSERT_TRUE(o.ok()) << o.status();
  using canopy::v1::JobState;
  EXPECT_THAT(o->states,
              ElementsAre(JobState::JOB_STATE_CANCELLED, JobState::JOB_STATE_FAILED,
                          JobState::JOB_STATE_TIMEOUT, JobState::JOB_STATE_NODE_FAIL,
                          JobState::JOB_STATE_OUT_OF_MEMORY, JobState::JOB_STATE_REQUEUED,
                          JobState::JOB_STATE_PREEMPTED, JobState::JOB_STATE_COMPLETING,
                          JobState::JOB_STATE_PENDING, JobState::JOB_STATE_RUNNING,
                          JobState::JOB_STATE_COMPLETED, JobState::JOB_STATE_CONFIGURING));
  // With -s and no -S the window starts now: the jobs in those states now.
  EXPECT_EQ(o->start, RecordedAt());
  // Slurm's states Canopy never has: accepted, matching nothing.
  absl::StatusOr<SacctOptions> lacks = Parse({"--state=S,suspended,BF,DL"});
  ASSERT_TRUE(lacks.ok()) << lacks.status();
  EXPECT_TRUE(lacks->states_given);
  EXPECT_TRUE(lacks->states.empty());
  EXPECT_EQ(Error({"-s", "CA,bogus"}), "sacct: fatal: unrecognized job state value 'bogus'");
  EXPECT_EQ(Error({"-s", "bogus,CA"}), "sacct: fatal: unrecognized job state value bogus");
}

TEST(SacctOptionsTest, Window) {
  absl::StatusOr<SacctOptions> o =
      Parse({"-S", "2026-11-01", "--endtime=2026-11-02T10:30"}, User(1000));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->start, Utc(2026, 11, 1, 0, 0, 0));
  EXPECT_EQ(o->end, Utc(2026, 11, 2, 10, 30, 0));
  EXPECT_EQ(Parse({"--starttime", "now-2hours"})->start, RecordedAt() - absl::Hours(2));
  // Past rather than future: a time later than now is today's, a later month last year's.
  EXPECT_EQ(Parse({"-S", "23:00"})->start, Utc(2026, 12, 3, 23, 0, 0));
  EXPECT_EQ(Parse({"-S", "noon"})->start, Utc(2026, 12, 3, 12, 0, 0));
  EXPECT_EQ(Parse({"-S", "11/30"})->start, Utc(2026, 11, 30, 0, 0, 0));
  EXPECT_EQ(Parse({"-S", "12/25"})->start, Utc(2026, 12, 25, 0, 0, 0));
  EXPECT_EQ(Parse({"-E", "01/15"})->end, Utc(2026, 1, 15, 0, 0, 0));
  // -j with -S keeps the window.
  EXPECT_EQ(Parse({"-j", "5", "-S", "midnight"})->start, Utc(2026, 12, 3, 0, 0, 0));
  EXPECT_THAT(Error({"-S", "2026-13-01"}),
              ::testing::MatchesRegex("Invalid time specification \\(pos=[0-9]+\\): 2026-13-01"));
  EXPECT_EQ(Error({"-E", "bogus"}), "Invalid time specification (pos=0): bogus");
  // -s with -S and no -E: the window ends where it starts (sacct(1), DEFAULT TIME WINDOW), so
  // `sacct -s F -S today` lists the jobs FAILED at midnight; -E or -j and no -S leave it open.
  o = Parse({"-s", "F", "-S", "midnight"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->end, Utc(2026, 12, 3, 0, 0, 0));
  EXPECT_EQ(Parse({"-s", "F", "-S", "midnight", "-E", "now"})->end, RecordedAt());
  EXPECT_FALSE(Parse({"-s", "F"})->end.has_value());
  EXPECT_FALSE(Parse({"-S", "midnight"})->end.has_value());
}

TEST(SacctOptionsTest, HelpUsageVersion) {
  EXPECT_TRUE(Parse({"-h"})->help);
  EXPECT_TRUE(Parse({"--help"})->help);
  EXPECT_TRUE(Parse({"--usage"})->usage);
  EXPECT_TRUE(Parse({"-V"})->version);
  EXPECT_TRUE(Parse({"--version"})->version);
  EXPECT_TRUE(Parse({"-e"})->helpformat);
  EXPECT_TRUE(Parse({"--helpformat"})->helpformat);
  EXPECT_EQ(SacctUsage(), "Usage: sacct [options]\n\tUse --help for help\n");
  const std::string fields = SacctHelpFormat();
  EXPECT_EQ(fields.substr(0, fields.find('\n') + 1),
            "Account             AdminComment        AllocCPUS           AllocNodes         \n");
  EXPECT_NE(SacctHelp().find("--starttime"), std::string::npos);
}

TEST(SacctOptionsTest, GetoptAndOperandErrors) {
  // sacct exits 1 after getopt's line; it prints no "Try" hint.
  EXPECT_EQ(Error({"-Z"}), "sacct: invalid option -- 'Z'");
  EXPECT_EQ(Error({"--bogus"}), "sacct: unrecognized option '--bogus'");
  EXPECT_EQ(Error({"-o"}), "sacct: option requires an argument -- 'o'");
  EXPECT_EQ(Error({"--json=1"}), "sacct: option '--json' doesn't allow an argument");
  EXPECT_EQ(Error({"--a"}),
            "sacct: option '--a' is ambiguous; possibilities: '--allusers' '--accounts' "
            "'--allocations' '--allclusters'");
  EXPECT_EQ(Error({"-X", "1211", "extra"}),
            "sacct: error: Unknown arguments:\nsacct: error:  1211\nsacct: error:  extra");
  // A bad value is reported before a later getopt error, as sacct handles options in order.
  EXPECT_EQ(Error({"-j", "x", "-Z"}), "sacct: fatal: Bad job/step specified: x");
}

}  // namespace
}  // namespace canopy::ctl::sacct
