// `scontrol show job` against what Slurm 22.05 printed for the same jobs
// (tests/data/slurm-reference/cli-outputs-22.05.txt: jobs 1 and 4; accounting-outputs-22.05.txt:
// jobs 1220 and 1221), line by line. The lines Canopy cannot reproduce are listed by their
// first field and explained in show_job.h; every other line must match byte for byte.
#include "ctl/scontrol/show_job.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/civil_time.h"
#include "absl/time/clock.h"
#include "ctl/scontrol/test_timestamp.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::ctl::scontrol {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

absl::Time TimeOf(const google::protobuf::Timestamp& t) {
  return absl::FromUnixSeconds(t.seconds());
}

canopy::v1::Job Base(uint32_t id, const std::string& name) {
  canopy::v1::Job job;
  job.set_job_id(id);
  job.set_user_name("root");
  job.set_partition("gpu");
  canopy::v1::JobSpec& s = *job.mutable_spec();
  s.set_name(name);
  s.set_script("#!/bin/sh\ntrue\n");
  s.set_requeue(true);
  s.set_submit_host("localhost");
  s.set_stdout_path("/dev/null");
  s.set_stderr_path("/dev/null");
  s.set_stdin_path("/dev/null");
  return job;
}

// Compares `ours` with Slurm's `theirs` line by line, skipping lines whose first field is in
// `differ` (and checking that those do differ only where expected: same first field).
void ExpectSameRecord(const std::string& ours, const std::string& theirs,
                      const std::vector<std::string>& differ) {
  const std::vector<std::string> a = absl::StrSplit(ours, '\n');
  const std::vector<std::string> b = absl::StrSplit(theirs, '\n');
  ASSERT_EQ(a.size(), b.size()) << ours;
  for (size_t i = 0; i < a.size(); ++i) {
    bool skip = false;
    for (const std::string& field : differ) {
      if (absl::StartsWith(b[i], field)) {
        EXPECT_TRUE(absl::StartsWith(a[i], field)) << a[i];
        skip = true;
      }
    }
    if (!skip) {
      EXPECT_EQ(a[i], b[i]) << "line " << i;
    }
  }
}

TEST(ShowJobTest, RunningJobAsSlurmPrintsIt) {
  canopy::v1::Job job = Base(1, "jobA");
  job.set_state(canopy::v1::JOB_STATE_RUNNING);
  job.set_reason("None");
  job.set_priority(17);
  job.set_group_id(0);
  job.mutable_spec()->set_min_nodes(2);
  job.mutable_spec()->set_gpus_per_node(4);
  job.mutable_spec()->set_work_dir("/tmp");
  job.mutable_time_limit()->set_seconds(3600);
  *job.mutable_submit_time() = At(2026, 12, 2, 9, 43, 37);
  *job.mutable_eligible_time() = job.submit_time();
  *job.mutable_start_time() = At(2026, 12, 2, 9, 43, 39);
  for (const char* node : {"gpu001", "gpu002"}) {
    job.add_nodes(node);
    job.add_cpus_allocated(1);
  }
  const std::string ours =
      RenderJob(job, TimeOf(job.start_time()) + absl::Seconds(3), absl::UTCTimeZone(), "root", {});
  // Slurm 22.05, "scontrol show job 1".
  const std::string theirs =
      "JobId=1 JobName=jobA\n"
      "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
      "   Priority=17 Nice=0 Account=(null) QOS=(null)\n"
      "   JobState=RUNNING Reason=None Dependency=(null)\n"
      "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
      "   RunTime=00:00:03 TimeLimit=01:00:00 TimeMin=N/A\n"
      "   SubmitTime=2026-12-02T09:43:37 EligibleTime=2026-12-02T09:43:37\n"
      "   AccrueTime=2026-12-02T09:43:37\n"
      "   StartTime=2026-12-02T09:43:39 EndTime=2026-12-02T10:43:39 Deadline=N/A\n"
      "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-02T09:43:39 Scheduler=Main\n"
      "   Partition=gpu AllocNode:Sid=localhost:2481\n"
      "   ReqNodeList=(null) ExcNodeList=(null)\n"
      "   NodeList=gpu[001-002]\n"
      "   BatchHost=gpu001\n"
      "   NumNodes=2 NumCPUs=2 NumTasks=2 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
      "   TRES=cpu=2,node=2,billing=2\n"
      "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
      "   MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0\n"
      "   Features=(null) DelayBoot=00:00:00\n"
      "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
      "   Command=(null)\n"
      "   WorkDir=/tmp\n"
      "   StdErr=/dev/null\n"
      "   StdIn=/dev/null\n"
      "   StdOut=/dev/null\n"
      "   Power=\n"
      "   TresPerNode=gres:gpu:4\n"
      "   \n"
      "\n";
  ExpectSameRecord(ours, theirs, {"   Partition="});
  EXPECT_THAT(ours, ::testing::HasSubstr("   Partition=gpu AllocNode:Sid=localhost:0\n"));
}

// -d: the accounting reference's "scontrol show jobid -dd 1210" has, after Socks/Node=,
//   JOB_GRES=gpu:96
//     Nodes=gpu[001-012] CPU_IDs=0 Mem=0 GRES=gpu:8(IDX:0-7)
// Canopy's CPU_IDs is N/A (the agent picks the cores); nodes given other GPUs get a line each.
TEST(ShowJobTest, DetailsShowEachNodesGpuIndexes) {
  canopy::v1::Job job = Base(1210, "blocker");
  job.set_state(canopy::v1::JOB_STATE_RUNNING);
  *job.mutable_start_time() = At(2026, 12, 3, 3, 50, 16);
  for (int i = 1; i <= 12; ++i) {
    job.add_nodes(absl::StrFormat("gpu%03d", i));
    job.add_cpus_allocated(1);
    job.add_gpus_per_node_allocated(8);
    job.add_node_gpu_indexes("0,1,2,3,4,5,6,7");
  }
  ShowJobOptions details;
  details.details = true;
  const absl::Time now = TimeOf(job.start_time()) + absl::Seconds(45);
  EXPECT_THAT(RenderJob(job, now, absl::UTCTimeZone(), "root", details),
              HasSubstr("   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
                        "   JOB_GRES=gpu:96\n"
                        "     Nodes=gpu[001-012] CPU_IDs=N/A Mem=0 GRES=gpu:8(IDX:0-7)\n"
                        "   MinCPUsNode=1"));
  EXPECT_THAT(RenderJob(job, now, absl::UTCTimeZone(), "root", {}), Not(HasSubstr("JOB_GRES")));

  // Runs of alike nodes, in allocation order; a typed request names its type; -o on one line.
  job.set_node_gpu_indexes(11, "5,0,1");
  job.set_gpus_per_node_allocated(11, 3);
  job.mutable_spec()->set_gpu_type("h100");
  for (int i = 0; i < 12; ++i) {
    job.add_mem_allocated_mib(1024);
  }
  details.one_liner = true;
  EXPECT_THAT(RenderJob(job, now, absl::UTCTimeZone(), "root", details),
              HasSubstr(" CoreSpec=* JOB_GRES=gpu:h100:91 "
                        "Nodes=gpu[001-011] CPU_IDs=N/A Mem=1024 GRES=gpu:h100:8(IDX:0-7) "
                        "Nodes=gpu012 CPU_IDs=N/A Mem=1024 GRES=gpu:h100:3(IDX:0-1,5) "
                        "MinCPUsNode=1"));

  // No GPUs: JOB_GRES=(null) and an empty GRES=. Nothing for a job that holds no nodes.
  canopy::v1::Job cpu_only = Base(7, "cpu");
  cpu_only.set_state(canopy::v1::JOB_STATE_RUNNING);
  cpu_only.add_nodes("gpu001");
  cpu_only.add_cpus_allocated(4);
  details.one_liner = false;
  EXPECT_THAT(RenderJob(cpu_only, now, absl::UTCTimeZone(), "root", details),
              HasSubstr("   JOB_GRES=(null)\n     Nodes=gpu001 CPU_IDs=N/A Mem=0 GRES=\n"));
  cpu_only.set_state(canopy::v1::JOB_STATE_PENDING);
  cpu_only.clear_nodes();
  EXPECT_THAT(RenderJob(cpu_only, now, absl::UTCTimeZone(), "root", details),
              Not(HasSubstr("JOB_GRES")));
}

TEST(ShowJobTest, HeldJobHasPriorityZeroAndNoEligibleTime) {
  canopy::v1::Job job = Base(4, "jobE");
  job.set_state(canopy::v1::JOB_STATE_PENDING);
  job.set_reason("JobHeldUser");
  job.set_priority(0);
  job.mutable_spec()->set_hold(true);
  job.mutable_spec()->set_work_dir("/tmp");
  *job.mutable_submit_time() = At(2026, 12, 2, 9, 43, 37);
  *job.mutable_eligible_time() = job.submit_time();
  const std::string ours =
      RenderJob(job, TimeOf(job.submit_time()) + absl::Seconds(5), absl::UTCTimeZone(), "root", {});
  // Slurm 22.05, "scontrol show job 4" (sbatch -H).
  const std::string theirs =
      "JobId=4 JobName=jobE\n"
      "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
      "   Priority=0 Nice=0 Account=(null) QOS=(null)\n"
      "   JobState=PENDING Reason=JobHeldUser Dependency=(null)\n"
      "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
      "   RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A\n"
      "   SubmitTime=2026-12-02T09:43:37 EligibleTime=Unknown\n"
      "   AccrueTime=Unknown\n"
      "   StartTime=Unknown EndTime=Unknown Deadline=N/A\n"
      "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-02T09:43:37 Scheduler=Main\n"
      "   Partition=gpu AllocNode:Sid=localhost:2481\n"
      "   ReqNodeList=(null) ExcNodeList=(null)\n"
      "   NodeList=\n"
      "   NumNodes=1-1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
      "   TRES=cpu=1,mem=4G,node=1,billing=1\n"
      "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
      "   MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0\n"
      "   Features=(null) DelayBoot=00:00:00\n"
      "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
      "   Command=(null)\n"
      "   WorkDir=/tmp\n"
      "   StdErr=/dev/null\n"
      "   StdIn=/dev/null\n"
      "   StdOut=/dev/null\n"
      "   Power=\n"
      "   \n"
      "\n";
  // Slurm counted the node's whole memory (DefMemPerNode) in TRES; Canopy only what was asked.
  ExpectSameRecord(ours, theirs, {"   Partition=", "   TRES="});
}

canopy::v1::Job Pending1220() {
  canopy::v1::Job job = Base(1220, "bigwait2");
  job.set_state(canopy::v1::JOB_STATE_PENDING);
  job.set_reason("Resources");
  job.set_priority(1562);
  job.mutable_spec()->set_account("vision");
  job.set_qos("normal");
  job.mutable_spec()->set_min_nodes(16);
  job.mutable_spec()->set_gpus_per_node(8);
  job.mutable_spec()->set_work_dir("/tmp/refjobs");
  job.mutable_time_limit()->set_seconds(20 * 60);
  *job.mutable_submit_time() = At(2026, 12, 3, 3, 50, 55);
  *job.mutable_eligible_time() = job.submit_time();
  return job;
}

TEST(ShowJobTest, PendingJobOfTheAccountingReference) {
  const canopy::v1::Job job = Pending1220();
  const std::string ours =
      RenderJob(job, TimeOf(job.submit_time()) + absl::Seconds(6), absl::UTCTimeZone(), "root", {});
  // Slurm 22.05, "scontrol show job 1220".
  const std::string theirs =
      "JobId=1220 JobName=bigwait2\n"
      "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
      "   Priority=1562 Nice=0 Account=vision QOS=normal\n"
      "   JobState=PENDING Reason=Resources Dependency=(null)\n"
      "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
      "   RunTime=00:00:00 TimeLimit=00:20:00 TimeMin=N/A\n"
      "   SubmitTime=2026-12-03T03:50:55 EligibleTime=2026-12-03T03:50:55\n"
      "   AccrueTime=2026-12-03T03:50:55\n"
      "   StartTime=Unknown EndTime=Unknown Deadline=N/A\n"
      "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-03T03:50:56 Scheduler=Main\n"
      "   Partition=gpu AllocNode:Sid=localhost:1604\n"
      "   ReqNodeList=(null) ExcNodeList=(null)\n"
      "   NodeList=\n"
      "   NumNodes=16-16 NumCPUs=16 NumTasks=16 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
      "   TRES=cpu=16,mem=64G,node=16,billing=16\n"
      "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
      "   MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0\n"
      "   Features=(null) DelayBoot=00:00:00\n"
      "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
      "   Command=(null)\n"
      "   WorkDir=/tmp/refjobs\n"
      "   StdErr=/dev/null\n"
      "   StdIn=/dev/null\n"
      "   StdOut=/dev/null\n"
      "   Power=\n"
      "   TresPerNode=gres:gpu:8\n"
      "   \n"
      "\n";
  // LastSchedEval is when the scheduler last looked, which Canopy does not record.
  ExpectSameRecord(ours, theirs, {"   Partition=", "   TRES=", "   SuspendTime="});

  // "scontrol update job 1220 TimeLimit=30", then "scontrol show job 1220 | grep -E
  // 'TimeLimit|Priority'".
  canopy::v1::Job updated = job;
  updated.mutable_time_limit()->set_seconds(30 * 60);
  std::string grepped;
  for (absl::string_view line :
       absl::StrSplit(RenderJob(updated, absl::Now(), absl::UTCTimeZone(), "root", {}), '\n')) {
    if (absl::StrContains(line, "TimeLimit") || absl::StrContains(line, "Priority")) {
      absl::StrAppend(&grepped, line, "\n");
    }
  }
  EXPECT_EQ(grepped,
            "   Priority=1562 Nice=0 Account=vision QOS=normal\n"
            "   RunTime=00:00:00 TimeLimit=00:30:00 TimeMin=N/A\n");
}

// A finished job keeps its NodeList and BatchHost in Slurm until it leaves slurmctld's memory
// (MinJobAge); one cancelled while pending never had nodes, and its start is its end.
TEST(ShowJobTest, FinishedJobsKeepTheirNodesAndACancelledPendingJobStartsWhenItEnds) {
  canopy::v1::Job job = Base(9, "done");
  job.set_state(canopy::v1::JOB_STATE_FAILED);
  job.set_reason("NonZeroExitCode");
  job.mutable_spec()->set_min_nodes(2);
  *job.mutable_submit_time() = At(2026, 12, 2, 9, 43, 40);
  *job.mutable_start_time() = At(2026, 12, 2, 9, 43, 41);
  *job.mutable_end_time() = At(2026, 12, 2, 9, 43, 42);
  job.add_nodes("gpu003");
  job.add_nodes("gpu004");
  const absl::Time later = TimeOf(job.end_time()) + absl::Seconds(5);
  std::string out = RenderJob(job, later, absl::UTCTimeZone(), "root", {});
  EXPECT_THAT(out, HasSubstr("\n   NodeList=gpu[003-004]\n   BatchHost=gpu003\n"));
  EXPECT_THAT(out, HasSubstr("   StartTime=2026-12-02T09:43:41 EndTime=2026-12-02T09:43:42 "));

  canopy::v1::Job cancelled = Base(26, "never");
  cancelled.set_state(canopy::v1::JOB_STATE_CANCELLED);
  *cancelled.mutable_submit_time() = At(2026, 12, 2, 9, 43, 40);
  *cancelled.mutable_end_time() = At(2026, 12, 2, 9, 43, 42);
  out = RenderJob(cancelled, later, absl::UTCTimeZone(), "root", {});
  EXPECT_THAT(out, HasSubstr("\n   NodeList=\n"));
  EXPECT_THAT(out, Not(HasSubstr("BatchHost=")));
  EXPECT_THAT(out, HasSubstr("   StartTime=2026-12-02T09:43:42 EndTime=2026-12-02T09:43:42 "));
}

TEST(ShowJobTest, QosIsTheJobsOwn) {
  canopy::v1::Job job = Pending1220();
  job.set_qos("high");
  EXPECT_THAT(RenderJob(job, absl::Now(), absl::UTCTimeZone(), "root", {}),
              HasSubstr("   Priority=1562 Nice=0 Account=vision QOS=high\n"));
  // A record from before canopyd kept QOS.
  job.clear_qos();
  EXPECT_THAT(RenderJob(job, absl::Now(), absl::UTCTimeZone(), "root", {}),
              HasSubstr(" Account=vision QOS=normal\n"));
  job.mutable_spec()->clear_account();
  EXPECT_THAT(RenderJob(job, absl::Now(), absl::UTCTimeZone(), "root", {}),
              HasSubstr(" Account=(null) QOS=(null)\n"));
}

TEST(ShowJobTest, DeadlineDelayBootAndExclusiveUser) {
  canopy::v1::Job job = Pending1220();
  canopy::v1::JobSpec& spec = *job.mutable_spec();
  *spec.mutable_deadline() = At(2026, 12, 4, 8, 0, 0);
  spec.mutable_delay_boot()->set_seconds(300);
  spec.set_exclusive(true);
  spec.set_exclusive_mode("user");
  const std::string out = RenderJob(job, absl::Now(), absl::UTCTimeZone(), "root", {});
  EXPECT_THAT(out, HasSubstr(" Deadline=2026-12-04T08:00:00\n"));
  EXPECT_THAT(out, HasSubstr("   Features=(null) DelayBoot=00:05:00\n"));
  EXPECT_THAT(out, HasSubstr("   OverSubscribe=USER Contiguous=0"));
  spec.clear_exclusive_mode();
  EXPECT_THAT(RenderJob(job, absl::Now(), absl::UTCTimeZone(), "root", {}),
              HasSubstr("   OverSubscribe=NO Contiguous=0"));
}

// The GPU and mail lines after Power=, as Slurm 22.05 printed them on this machine for jobs
// submitted (held) with the sbatch options named in each case: only the ways the job asked for
// GPUs, in Slurm's order. --gpus and --gpus-per-task show no TresPerNode, though sbatch works a
// per-node count out of them for placement.
TEST(ShowJobTest, GpuRequestLinesAsTheJobAskedForThem) {
  struct Case {
    const char* options;
    void (*set)(canopy::v1::JobSpec&);
    const char* tail;
  };
  const Case cases[] = {
      {"--gpus=2",
       [](canopy::v1::JobSpec& s) {
         s.set_gpus_per_job(2);
         s.set_gpus_per_node(2);
       },
       "Power=\n   TresPerJob=gres:gpu:2\n"},
      {"--gpus=3 -N 2",
       [](canopy::v1::JobSpec& s) {
         s.set_gpus_per_job(3);
         s.set_gpus_per_node(2);
       },
       "Power=\n   TresPerJob=gres:gpu:3\n"},
      {"--gpus-per-task=1 -n 2",
       [](canopy::v1::JobSpec& s) {
         s.set_gpus_per_task(1);
         s.set_gpus_per_node(2);
       },
       "Power=\n   TresPerTask=gres:gpu:1\n"},
      {"--gres=gpu:2 --cpus-per-gpu=2",
       [](canopy::v1::JobSpec& s) {
         s.set_gpus_per_node(2);
         s.set_gpus_per_node_requested(true);
         s.set_cpus_per_gpu(2);
       },
       "Power=\n   CpusPerTres=gres:gpu:2\n   TresPerNode=gres:gpu:2\n"},
      {"--gpus-per-node=2 --mem-per-gpu=1G --gpu-bind=closest",
       [](canopy::v1::JobSpec& s) {
         s.set_gpus_per_node(2);
         s.set_gpus_per_node_requested(true);
         s.set_mem_per_gpu_mib(1024);
         s.set_gpu_bind("closest");
       },
       "Power=\n   MemPerTres=gres:gpu:1024\n   TresBind=gpu:closest\n   "
       "TresPerNode=gres:gpu:2\n"},
      {"-N1 --mail-type=END --mail-user=a@b",
       [](canopy::v1::JobSpec& s) {
         s.set_mail_type("END");
         s.set_mail_user("a@b");
       },
       "Power=\n   MailUser=a@b MailType=END\n"},
      {"--mail-type=BEGIN,FAIL (mails the submitter)",
       [](canopy::v1::JobSpec& s) { s.set_mail_type("BEGIN,FAIL"); },
       "Power=\n   MailUser=root MailType=BEGIN,FAIL\n"},
      {"--gpus=2 --gpus-per-node=1 -N 2",
       [](canopy::v1::JobSpec& s) {
         s.set_gpus_per_job(2);
         s.set_gpus_per_node(1);
         s.set_gpus_per_node_requested(true);
       },
       "Power=\n   TresPerJob=gres:gpu:2\n   TresPerNode=gres:gpu:1\n"},
      // A spec that gives gpus_per_node alone (an older client, a portal) asks per node.
      {"gpus_per_node alone", [](canopy::v1::JobSpec& s) { s.set_gpus_per_node(4); },
       "Power=\n   TresPerNode=gres:gpu:4\n"},
  };
  for (const Case& c : cases) {
    canopy::v1::Job job = Pending1220();
    job.set_user_name("root");
    canopy::v1::JobSpec& spec = *job.mutable_spec();
    spec.clear_gpus_per_node();
    c.set(spec);
    const std::string out = RenderJob(job, absl::Now(), absl::UTCTimeZone(), "root", {});
    const size_t power = out.find("Power=");
    ASSERT_NE(power, std::string::npos) << c.options;
    EXPECT_EQ(out.substr(power), absl::StrCat(c.tail, "   \n\n")) << c.options;
  }
}

// Slurm adds a Comment line, with a trailing space, after WorkDir when the job has one.
TEST(ShowJobTest, CommentLineOnlyWhenSet) {
  canopy::v1::Job job = Pending1220();
  EXPECT_THAT(RenderJob(job, absl::Now(), absl::UTCTimeZone(), "root", {}),
              Not(HasSubstr("Comment=")));
  job.mutable_spec()->set_comment("epoch 3");
  EXPECT_THAT(RenderJob(job, absl::Now(), absl::UTCTimeZone(), "root", {}),
              HasSubstr("\n   Comment=epoch 3 \n   StdErr="));
}

TEST(ShowJobTest, OneLinerEndsWithASpace) {
  canopy::v1::Job job = Pending1220();
  job.set_job_id(1221);
  job.mutable_spec()->set_name("small");
  job.set_priority(1035);
  job.mutable_spec()->set_account("nlp");
  job.set_reason("Priority");
  job.mutable_spec()->set_min_nodes(1);
  job.mutable_spec()->set_gpus_per_node(0);
  job.mutable_time_limit()->set_seconds(5 * 60);
  ShowJobOptions one;
  one.one_liner = true;
  const std::string ours = RenderJob(job, TimeOf(job.submit_time()) + absl::Seconds(6),
                                     absl::UTCTimeZone(), "root", one);
  const std::string theirs =
      "JobId=1221 JobName=small UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=1035 "
      "Nice=0 Account=nlp QOS=normal JobState=PENDING Reason=Priority Dependency=(null) "
      "Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 RunTime=00:00:00 "
      "TimeLimit=00:05:00 TimeMin=N/A SubmitTime=2026-12-03T03:50:55 "
      "EligibleTime=2026-12-03T03:50:55 AccrueTime=2026-12-03T03:50:55 StartTime=Unknown "
      "EndTime=Unknown Deadline=N/A SuspendTime=None SecsPreSuspend=0 "
      "LastSchedEval=2026-12-03T03:50:56 Scheduler=Main Partition=gpu "
      "AllocNode:Sid=localhost:1604 ReqNodeList=(null) ExcNodeList=(null) NodeList= "
      "NumNodes=1-1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:* "
      "TRES=cpu=1,mem=4G,node=1,billing=1 Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=* "
      "MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0 Features=(null) DelayBoot=00:00:00 "
      "OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null) Command=(null) "
      "WorkDir=/tmp/refjobs StdErr=/dev/null StdIn=/dev/null StdOut=/dev/null Power= \n";
  // Word by word, the same exceptions as the multi-line record.
  const std::vector<std::string> a = absl::StrSplit(ours, ' ');
  const std::vector<std::string> b = absl::StrSplit(theirs, ' ');
  ASSERT_EQ(a.size(), b.size()) << ours;
  for (size_t i = 0; i < a.size(); ++i) {
    if (absl::StartsWith(b[i], "LastSchedEval=") || absl::StartsWith(b[i], "AllocNode:Sid=") ||
        absl::StartsWith(b[i], "TRES=")) {
      continue;
    }
    EXPECT_EQ(a[i], b[i]);
  }
}

TEST(ShowJobTest, DependencyBeginTimeAndArrayTask) {
  canopy::v1::Job job = Pending1220();
  job.set_reason("Dependency");
  job.set_array_job_id(1214);
  job.set_array_task_id(3);
  canopy::v1::JobSpec& s = *job.mutable_spec();
  canopy::v1::JobDependency* d = s.add_dependencies();
  d->set_type(canopy::v1::JobDependency::TYPE_AFTER_OK);
  d->set_job_id(5);
  d->set_whole_array(true);
  d->set_state(canopy::v1::JobDependency::STATE_UNFULFILLED);
  d = s.add_dependencies();
  d->set_type(canopy::v1::JobDependency::TYPE_AFTER);
  d->set_job_id(7);
  d->mutable_delay()->set_seconds(600);
  d->set_state(canopy::v1::JobDependency::STATE_UNFULFILLED);
  d = s.add_dependencies();
  d->set_type(canopy::v1::JobDependency::TYPE_AFTER_ANY);
  d->set_job_id(8);
  d->set_state(canopy::v1::JobDependency::STATE_FULFILLED);
  const std::string ours =
      RenderJob(job, TimeOf(job.submit_time()), absl::UTCTimeZone(), "root", {});
  EXPECT_THAT(ours, ::testing::StartsWith("JobId=1220 ArrayJobId=1214 ArrayTaskId=3 "
                                          "JobName=bigwait2\n"));
  EXPECT_THAT(
      ours, ::testing::HasSubstr("   JobState=PENDING Reason=Dependency "
                                 "Dependency=afterok:5_*(unfulfilled),after:7+10(unfulfilled)\n"));
  EXPECT_THAT(ours, ::testing::HasSubstr("EligibleTime=Unknown\n   AccrueTime=Unknown\n"));

  // Dependencies satisfied, begin time ahead: eligible then, not accruing yet.
  for (canopy::v1::JobDependency& dep : *s.mutable_dependencies()) {
    dep.set_state(canopy::v1::JobDependency::STATE_FULFILLED);
  }
  job.set_reason("BeginTime");
  *s.mutable_begin_time() = At(2026, 12, 3, 5, 0, 0);
  const std::string later =
      RenderJob(job, TimeOf(job.submit_time()), absl::UTCTimeZone(), "root", {});
  EXPECT_THAT(later, ::testing::HasSubstr("Reason=BeginTime Dependency=(null)\n"));
  EXPECT_THAT(later,
              ::testing::HasSubstr("EligibleTime=2026-12-03T05:00:00\n   AccrueTime=Unknown\n"));
}

}  // namespace
}  // namespace canopy::ctl::scontrol
