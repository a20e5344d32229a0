// sacct's output for the cluster of tests/data/slurm-reference/accounting-outputs-22.05.txt,
// compared byte for byte with what Slurm 22.05 printed there, and the rules the reference does
// not show (pending array remainders, -D, step selection, delimiters, GPUs).
#include "ctl/sacct/render.h"

#include "absl/strings/str_split.h"
#include "ctl/sacct/test_cluster.h"
#include "gtest/gtest.h"

namespace canopy::ctl::sacct {
namespace {

using testing::At;
using testing::ReferenceCluster;
using testing::ReferenceEnvironment;
using testing::ReferenceOutput;

constexpr char kAccounting[] = "accounting-outputs-22.05.txt";

SacctOutput Render(const std::vector<std::string>& args,
                   const canopy::v1::ListAccountingResponse& response) {
  absl::StatusOr<SacctOptions> o = ParseSacctArgs(args, ReferenceEnvironment());
  EXPECT_TRUE(o.ok()) << o.status();
  if (!o.ok()) {
    return {};
  }
  return RenderSacct(*o, response, RenderEnvironment{});
}

std::string Out(const std::vector<std::string>& args,
                const canopy::v1::ListAccountingResponse& response) {
  const SacctOutput r = Render(args, response);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.exit_code, 0);
  return r.out;
}

TEST(SacctRenderTest, DefaultMatchesSlurm) {
  EXPECT_EQ(Out({}, ReferenceCluster()), ReferenceOutput(kAccounting, "sacct"));
}

TEST(SacctRenderTest, AllocationsMatchSlurm) {
  EXPECT_EQ(Out({"-X"}, ReferenceCluster()), ReferenceOutput(kAccounting, "sacct -X"));
}

TEST(SacctRenderTest, OneJobWithItsStepsMatchesSlurm) {
  EXPECT_EQ(Out({"-j", "1211"}, testing::Only(ReferenceCluster(), {1211})),
            ReferenceOutput(kAccounting, "sacct -j 1211"));
}

TEST(SacctRenderTest, NineteenFieldsParsableMatchSlurm) {
  const std::string format =
      "JobID,JobIDRaw,JobName,Partition,Account,User,State,ExitCode,DerivedExitCode,NNodes,NCPUS,"
      "NodeList,AllocTRES%40,ReqTRES%40,Elapsed,Timelimit,Start,End,Submit";
  EXPECT_EQ(
      Out({"-j", "1211", "--format=" + format, "-P"}, testing::Only(ReferenceCluster(), {1211})),
      ReferenceOutput(kAccounting, "sacct -j 1211 --format=" + format + " -P"));
}

TEST(SacctRenderTest, ArrayTasksMatchSlurm) {
  EXPECT_EQ(
      Out({"-j", "1214", "-X", "-P", "--format=JobID,JobIDRaw,State,ExitCode"},
          testing::Only(ReferenceCluster(), {1214})),
      ReferenceOutput(kAccounting, "sacct -j 1214 -X -P --format=JobID,JobIDRaw,State,ExitCode"));
}

TEST(SacctRenderTest, ReasonColumnMatchesSlurm) {
  EXPECT_EQ(Out({"-j", "1212,1213", "-o", "JobID,State,ExitCode,Reason", "-X"},
                testing::Only(ReferenceCluster(), {1212, 1213})),
            ReferenceOutput(kAccounting, "sacct -j 1212,1213 -o JobID,State,ExitCode,Reason -X"));
}

TEST(SacctRenderTest, ParsableWithoutHeaderMatchesSlurm) {
  EXPECT_EQ(Out({"-P", "-n", "--format=JobIdRaw,State", "-j", "1211"},
                testing::Only(ReferenceCluster(), {1211})),
            ReferenceOutput(kAccounting, "sacct -P -n --format=JobIdRaw,State -j 1211"));
}

TEST(SacctRenderTest, WidenedColumnWithoutHeaderMatchesSlurm) {
  // $ sacct -nu root -o Account%20 | head -n1
  const std::string out = Out({"-nu", "root", "-o", "Account%20"}, ReferenceCluster());
  EXPECT_EQ(out.substr(0, out.find('\n') + 1),
            ReferenceOutput(kAccounting, "sacct -nu root -o Account%20 | head -n1"));
}

TEST(SacctRenderTest, NoJobsIsTheHeaderAlone) {
  canopy::v1::ListAccountingResponse none;
  EXPECT_EQ(Out({"-X", "-s", "CA,F", "-o", "JobID,JobName,State,ExitCode"}, none),
            ReferenceOutput(kAccounting, "sacct -X -s CA,F -o JobID,JobName,State,ExitCode"));
  EXPECT_EQ(Out({"-j", "999999"}, none), ReferenceOutput(kAccounting, "sacct -j 999999"));
}

TEST(SacctRenderTest, LongParsableMatchesSlurm) {
  EXPECT_EQ(Out({"-l", "-j", "1212", "-X", "-P"}, testing::Only(ReferenceCluster(), {1212})),
            ReferenceOutput(kAccounting, "sacct -l -j 1212 -X -P"));
}

TEST(SacctRenderTest, CompletionViewMatchesSlurm) {
  // $ sacct -c -j 1,2,3 (tests/data/slurm-reference/cli-outputs-22.05.txt): the completion log
  // has no steps and writes CANCELLED without who.
  canopy::v1::ListAccountingResponse r;
  const struct {
    uint32_t id;
    const char* name;
    std::vector<std::string> nodes;
  } jobs[] = {{3, "jobC", {"gpu001"}}, {2, "jobB", {"gpu003"}}, {1, "jobA", {"gpu001", "gpu002"}}};
  for (const auto& j : jobs) {
    canopy::v1::AccountingRecord rec =
        testing::Record(j.id, j.name, "", canopy::v1::JOB_STATE_CANCELLED);
    rec.set_cancelled_by_uid(0);
    const google::protobuf::Timestamp end = At(9, 43, 42);
    testing::Ran(rec, j.nodes, At(9, 43, 40), &end);
    testing::AddStep(rec, "batch", "batch", canopy::v1::JOB_STATE_CANCELLED, j.nodes, 1,
                     At(9, 43, 40), &end);
    *r.add_records() = rec;
  }
  EXPECT_EQ(Out({"-c", "-j", "1,2,3"}, r),
            "JobID           UID    JobName  Partition   NNodes        NodeList      State      "
            "           End \n"
            "------------ ------ ---------- ---------- -------- --------------- ---------- "
            "------------------- \n"
            "3                 0       jobC        gpu        1          gpu001  CANCELLED "
            "2026-12-03T09:43:42 \n"
            "2                 0       jobB        gpu        1          gpu003  CANCELLED "
            "2026-12-03T09:43:42 \n"
            "1                 0       jobA        gpu        2    gpu[001-002]  CANCELLED "
            "2026-12-03T09:43:42 \n");
}

TEST(SacctRenderTest, CancelledByShowsWhoWhenTheColumnIsWideEnough) {
  EXPECT_EQ(Out({"-j", "1213", "-X", "-P", "-o", "JobID,State,Start,End,NodeList,AllocTRES"},
                testing::Only(ReferenceCluster(), {1213})),
            "JobID|State|Start|End|NodeList|AllocTRES\n"
            "1213|CANCELLED by 0|Unknown|2026-12-03T03:48:40|None assigned|"
            "billing=1,cpu=1,node=1\n");
}

TEST(SacctRenderTest, RunningJobElapsedCountsToTheServersClock) {
  EXPECT_EQ(Out({"-j", "1210", "-P", "-o", "JobID,Elapsed,ElapsedRaw,End,Timelimit,NodeList"},
                testing::Only(ReferenceCluster(), {1210})),
            "JobID|Elapsed|ElapsedRaw|End|Timelimit|NodeList\n"
            "1210|00:00:42|42|Unknown|UNLIMITED|gpu[001-012]\n"
            "1210.batch|00:00:42|42|Unknown||gpu001\n");
  // A COMPLETING job has ended: its time stops at its end.
  canopy::v1::ListAccountingResponse completing = testing::Only(ReferenceCluster(), {1210});
  canopy::v1::Job* job = completing.mutable_records(0)->mutable_job();
  job->set_state(canopy::v1::JOB_STATE_COMPLETING);
  *job->mutable_end_time() = At(3, 50, 26);
  EXPECT_EQ(Out({"-j", "1210", "-X", "-P", "-n", "-o", "State,Elapsed,End"}, completing),
            "COMPLETING|00:00:10|2026-12-03T03:50:26\n");
}

TEST(SacctRenderTest, PendingArrayRemainderIsOneLine) {
  canopy::v1::ListAccountingResponse r;
  *r.mutable_server_time() = At(4, 0, 0);
  canopy::v1::AccountingRecord first = testing::ArrayTask(1230, 1230, 1);
  *r.add_records() = first;
  for (uint32_t task = 2; task <= 4; ++task) {
    canopy::v1::AccountingRecord rec =
        testing::Record(1229 + task, "arr", "nlp", canopy::v1::JOB_STATE_PENDING);
    rec.mutable_job()->set_array_job_id(1230);
    rec.mutable_job()->set_array_task_id(task);
    rec.mutable_job()->mutable_spec()->set_array_spec("1-4%2");
    rec.mutable_job()->set_reason("JobArrayTaskLimit");
    *r.add_records() = rec;
  }
  EXPECT_EQ(Out({"-X", "-P", "-o", "JobID,JobIDRaw,State,Reason"}, r),
            "JobID|JobIDRaw|State|Reason\n"
            "1230_1|1230|COMPLETED|None\n"
            "1230_[2-4%2]|1230|PENDING|JobArrayTaskLimit\n");
  // One task left pending is that task; unthrottled arrays have no "%N".
  canopy::v1::ListAccountingResponse one;
  *one.add_records() = r.records(3);
  one.mutable_records(0)->mutable_job()->mutable_spec()->set_array_spec("1-4");
  EXPECT_EQ(Out({"-X", "-n", "-P", "-o", "JobID"}, one), "1230_4\n");
  *one.add_records() = r.records(2);
  one.mutable_records(1)->mutable_job()->mutable_spec()->set_array_spec("1-4");
  EXPECT_EQ(Out({"-X", "-n", "-P", "-o", "JobID"}, one), "1230_[3-4]\n");
}

TEST(SacctRenderTest, EarlierAttemptsOnlyWithDuplicates) {
  canopy::v1::ListAccountingResponse r = testing::Only(ReferenceCluster(), {1216});
  canopy::v1::AccountingRecord earlier = r.records(0);
  earlier.set_earlier_attempt(true);
  earlier.mutable_job()->set_state(canopy::v1::JOB_STATE_NODE_FAIL);
  earlier.mutable_steps(0)->set_state(canopy::v1::JOB_STATE_CANCELLED);
  canopy::v1::ListAccountingResponse both;
  *both.mutable_server_time() = r.server_time();
  *both.add_records() = earlier;
  *both.add_records() = r.records(0);
  both.mutable_records(1)->mutable_job()->set_restart_count(1);
  EXPECT_EQ(Out({"-D", "-P", "-o", "JobID,State,Restarts"}, both),
            "JobID|State|Restarts\n"
            "1216|NODE_FAIL|0\n"
            "1216.batch|CANCELLED|\n"
            "1216|COMPLETED|1\n"
            "1216.batch|COMPLETED|\n");
  EXPECT_EQ(Out({"-P", "-n", "-o", "JobID,State"}, both),
            "1216|COMPLETED\n"
            "1216.batch|COMPLETED\n");
}

TEST(SacctRenderTest, JobStepSelectionShowsTheStepAlone) {
  const canopy::v1::ListAccountingResponse r = testing::Only(ReferenceCluster(), {1211});
  EXPECT_EQ(Out({"-j", "1211.0", "-P", "-n", "-o", "JobID,JobName"}, r), "1211.0|hostname\n");
  EXPECT_EQ(Out({"-j", "1211.batch,1211.1", "-P", "-n", "-o", "JobID"}, r), "1211.batch\n1211.1\n");
  EXPECT_EQ(Out({"-j", "1211.0,1211", "-P", "-n", "-o", "JobID"}, r),
            "1211\n1211.batch\n1211.0\n1211.1\n");
  EXPECT_EQ(Out({"-j", "1211.0", "-X", "-P", "-n", "-o", "JobID"}, r), "");
  EXPECT_EQ(Out({"-j", "1214_3", "-P", "-n", "-o", "JobID,JobIDRaw"},
                testing::Only(ReferenceCluster(), {1214})),
            "1214_3|1219\n1214_3.batch|1219.batch\n");
}

TEST(SacctRenderTest, DelimiterAndTrailingSeparator) {
  const canopy::v1::ListAccountingResponse r = testing::Only(ReferenceCluster(), {1212});
  EXPECT_EQ(Out({"-X", "-p", "-o", "JobID,State"}, r), "JobID|State|\n1212|FAILED|\n");
  EXPECT_EQ(Out({"-X", "-P", "--delimiter=;;", "-o", "JobID,State"}, r),
            "JobID;;State\n1212;;FAILED\n");
  // Without -p or -P the delimiter is ignored.
  EXPECT_EQ(Out({"-X", "-n", "--delimiter=;", "-o", "JobID,State"}, r),
            "1212             FAILED \n");
}

TEST(SacctRenderTest, GpusMemoryAndDerivedExitCode) {
  canopy::v1::AccountingRecord rec =
      testing::Record(1300, "train", "vision", canopy::v1::JOB_STATE_FAILED, 2);
  canopy::v1::Job* job = rec.mutable_job();
  job->mutable_spec()->set_gpus_per_node(8);
  job->mutable_spec()->set_mem_per_node_mib(1536);
  job->mutable_spec()->set_cpus_per_task(4);
  job->mutable_spec()->set_comment("sweep 7");
  job->set_exit_code(1);
  const google::protobuf::Timestamp s = At(5, 0, 0), e = At(6, 1, 1);
  testing::Ran(rec, {"gpu002", "gpu001"}, s, &e);
  job->clear_cpus_allocated();
  for (int i = 0; i < 2; ++i) {
    job->add_cpus_allocated(4);
    job->add_gpus_per_node_allocated(8);
    job->add_mem_allocated_mib(1536);
  }
  testing::AddStep(rec, "batch", "batch", canopy::v1::JOB_STATE_FAILED, {"gpu001"}, 4, s, &e)
      ->set_exit_code(1);
  canopy::v1::AccountingStep* step = testing::AddStep(
      rec, "0", "python", canopy::v1::JOB_STATE_FAILED, {"gpu001", "gpu002"}, 8, s, &e);
  step->set_exit_code(2);
  step->set_gpus(16);
  step->set_mem_mib(2048);
  testing::AddStep(rec, "1", "python", canopy::v1::JOB_STATE_CANCELLED, {"gpu001"}, 4, s, &e)
      ->set_exit_signal(9);
  canopy::v1::ListAccountingResponse r;
  *r.add_records() = rec;
  EXPECT_EQ(Out({"-P", "-o",
                 "JobID,NodeList,AllocTRES,ReqTRES,ReqMem,ExitCode,DerivedExitCode,Elapsed,"
                 "CPUTimeRAW,Comment"},
                r),
            "JobID|NodeList|AllocTRES|ReqTRES|ReqMem|ExitCode|DerivedExitCode|Elapsed|"
            "CPUTimeRAW|Comment\n"
            "1300|gpu[001-002]|billing=8,cpu=8,gres/gpu=16,mem=3G,node=2|"
            "billing=8,cpu=8,gres/gpu=16,mem=3G,node=2|3G|1:0|2:0|01:01:01|29288|sweep 7\n"
            "1300.batch|gpu001|cpu=4,mem=0,node=1|||1:0||01:01:01|14644|\n"
            "1300.0|gpu[001-002]|cpu=8,gres/gpu=16,mem=2G,node=2|||2:0||01:01:01|29288|\n"
            "1300.1|gpu001|cpu=4,mem=0,node=1|||0:9||01:01:01|14644|\n");
  EXPECT_EQ(Out({"-X", "-P", "-n", "--noconvert", "-o", "AllocTRES,ReqMem"}, r),
            "billing=8,cpu=8,gres/gpu=16,mem=3072M,node=2|3072M\n");
  r.mutable_records(0)->mutable_job()->mutable_spec()->set_wckey("proj");
  r.mutable_records(0)->mutable_job()->mutable_spec()->set_reservation("maint");
  EXPECT_EQ(Out({"-P", "-n", "-o", "JobID,WCKey,Reservation"}, r),
            "1300|proj|maint\n1300.batch||\n1300.0||\n1300.1||\n");
}

TEST(SacctRenderTest, NarrowColumnsCutTextWithPlusAndDatesWithout) {
  EXPECT_EQ(Out({"-j", "1211", "-X", "-n", "-o", "JobName%4,Start%10,NNodes%1"},
                testing::Only(ReferenceCluster(), {1211})),
            "tra+ 2026-12-03 2 \n");
}

TEST(SacctRenderTest, JsonIsTheRecordsAsDataParserObjects) {
  const SacctOutput r = Render({"--json", "-j", "1211"}, testing::Only(ReferenceCluster(), {1211}));
  EXPECT_NE(r.out.find("\"job_id\": 1211,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"id\": \"1211.batch\","), std::string::npos) << r.out;
  EXPECT_EQ(r.out.back(), '\n');
}

}  // namespace
}  // namespace canopy::ctl::sacct
