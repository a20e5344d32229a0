// squeue's fields beyond the reference file's, and its warnings, sort keys and filters, against
// what Slurm 22.05's squeue printed for the same jobs: "runA" (sbatch -N 2 --wrap "srun -N2
// sleep 1000", running), "held" (sbatch -H) and the array "arr" (sbatch -a 1-9%2 -p cpu -t 10)
// with tasks 1 and 2 running.
#include "ctl/squeue/render.h"
#include "gtest/gtest.h"

namespace canopy::ctl::squeue {
namespace {

constexpr int64_t kFieldsNow = 1796309633;  // 2026-12-03T14:53:53Z
constexpr int64_t kSubmit = kFieldsNow - 9;
constexpr int64_t kFieldsStart = kFieldsNow - 8;

class SqueueFieldsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    jobs_.mutable_server_time()->set_seconds(kFieldsNow);
    canopy::v1::Job* a = Add(1, "runA", "gpu", {"gpu001", "gpu002"}, 1);
    a->mutable_spec()->set_min_nodes(2);
    a->mutable_spec()->set_stdout_path("/dev/null");
    Add(2, "held", "gpu", {}, 0)->set_reason("JobHeldUser");
    for (uint32_t task = 1; task <= 9; ++task) {
      canopy::v1::Job* t =
          Add(4 + task - 1, "arr", "cpu",
              task <= 2 ? std::vector<std::string>{"gpu003"} : std::vector<std::string>{}, 1);
      t->set_array_job_id(4);
      t->set_array_task_id(task);
      t->mutable_spec()->set_array_spec("1-9%2");
      t->mutable_time_limit()->set_seconds(600);
      if (task > 2) {
        t->set_reason("JobArrayTaskLimit");
      }
    }
    // Slurm gave the array's tasks 1 and 2 the ids 5 and 6 and kept 4 for the rest.
    jobs_.mutable_jobs(2)->set_job_id(5);
    jobs_.mutable_jobs(3)->set_job_id(6);
  }

  canopy::v1::Job* Add(uint32_t id, const std::string& name, const std::string& partition,
                       std::vector<std::string> nodes, uint32_t priority) {
    canopy::v1::Job* j = jobs_.add_jobs();
    j->set_job_id(id);
    j->mutable_spec()->set_name(name);
    j->mutable_spec()->set_script("#!/bin/sh\n");
    j->mutable_spec()->set_work_dir("/tmp/sq-ref/work");
    j->mutable_spec()->set_requeue(true);
    j->set_user_name("root");
    j->set_partition(partition);
    j->set_priority(priority);
    j->set_reason("None");
    j->mutable_submit_time()->set_seconds(kSubmit);
    j->set_state(nodes.empty() ? canopy::v1::JOB_STATE_PENDING : canopy::v1::JOB_STATE_RUNNING);
    if (!nodes.empty()) {
      j->mutable_start_time()->set_seconds(kFieldsStart);
    }
    for (const std::string& n : nodes) {
      j->add_nodes(n);
      j->add_cpus_allocated(1);
    }
    return j;
  }

  SqueueOutput Run(const std::vector<std::string>& args) {
    absl::StatusOr<SqueueOptions> o = ParseSqueueArgs(args);
    EXPECT_TRUE(o.ok()) << o.status();
    RenderEnvironment env;
    env.group_name = [](uint32_t gid) { return gid == 0 ? std::string("root") : "other"; };
    return RenderSqueueOutput(*o, jobs_, env);
  }

  canopy::v1::ListJobsResponse jobs_;
};

// $ squeue -j 1,2,4 -o '%X|' for every letter (Slurm's values where Canopy has the data).
TEST_F(SqueueFieldsTest, EveryLetterMatchesSlurm) {
  EXPECT_EQ(Run({"-h", "-o", "%i|%A|%F|%K|%B|%C|%D|%e|%g|%G|%h|%L|%l|%M|%N|%P|%Q|%R|%S|%t|%T"}).out,
            "4_[3-9%2]|4|4|3-9%2|n/a|1|1|N/A|root|0|OK|10:00|10:00|0:00||cpu|1|"
            "(JobArrayTaskLimit)|N/A|PD|PENDING\n"
            "4_1|5|4|1|gpu003|1|1|2026-12-03T15:03:45|root|0|OK|9:52|10:00|0:08|gpu003|cpu|1|"
            "gpu003|2026-12-03T14:53:45|R|RUNNING\n"
            "4_2|6|4|2|gpu003|1|1|2026-12-03T15:03:45|root|0|OK|9:52|10:00|0:08|gpu003|cpu|1|"
            "gpu003|2026-12-03T14:53:45|R|RUNNING\n"
            "2|2|2|N/A|n/a|1|1|N/A|root|0|OK|UNLIMITED|UNLIMITED|0:00||gpu|0|(JobHeldUser)|N/A|PD|"
            "PENDING\n"
            "1|1|1|N/A|gpu001|2|2|NONE|root|0|OK|UNLIMITED|UNLIMITED|0:08|gpu[001-002]|gpu|1|"
            "gpu[001-002]|2026-12-03T14:53:45|R|RUNNING\n");
  EXPECT_EQ(
      Run({"-h", "-j", "1", "-o",
           "%a|%c|%d|%f|%k|%m|%n|%o|%p|%q|%r|%s|%v|%w|%x|%y|%z|%E|%H|%I|%J|%O|%U|%W|%X|%Y|%Z"})
          .out,
      "(null)|1|0|(null)|(null)|0||(null)|0.00000000023283|(null)|None||(null)|(null)||0|*:*:*|"
      "(null)|*|*|*|0|0|(null)|N/A|(null)|/tmp/sq-ref/work\n");
}

TEST_F(SqueueFieldsTest, HeadersMatchSlurm) {
  EXPECT_EQ(
      Run({"-j", "1", "-o", "%F|%K|%B|%e|%g|%h|%L|%p|%E|%k|%o|%v|%w|%y|%z"}).out.substr(0, 113),
      "ARRAY_JOB_ID|ARRAY_TASK_ID|EXEC_HOST|END_TIME|GROUP|OVER_SUBSCRIBE|TIME_LEFT|PRIORITY|"
      "DEPENDENCY|COMMENT|COMMAND|");
}

// $ squeue -j 1,2 -O 'NAME:40|' for -O-only names.
TEST_F(SqueueFieldsTest, LongNamesMatchSlurm) {
  EXPECT_EQ(Run({"-h", "-j", "1", "-O",
                 "batchflag:3,requeue:3,numtasks:3,pendingtime:3,stdout:10,stdin:10,stderr:10,"
                 "profile:7,origin:3,mintime:5,sct:6,delayboot:5,hetjobid:4,exit_code:2"})
                .out,
            "1  1  2  1  /dev/null /dev/null /dev/null NotSet NA 0:00 *:*:* 0:00 N/A 0 \n");
  EXPECT_EQ(Run({"-j", "2", "-O", "StateCompact:3,arraytaskid:.14,cpus-per-task:5"}).out,
            "ST  ARRAY_TASK_IDCPUS_\nPD            N/A1    \n");
}

// $ squeue -O bogus: the error, then an empty line per job (exit 0).
TEST_F(SqueueFieldsTest, UnknownFieldsAreWarnings) {
  const SqueueOutput r = Run({"-j", "1,2", "-O", "jobid:3,bogus"});
  EXPECT_EQ(r.err, "squeue: error: Invalid job format specification: bogus\n");
  EXPECT_EQ(r.out, "JOB\n2  \n1  \n");
  EXPECT_EQ(r.exit_code, 0);
  const SqueueOutput dash = Run({"-h", "-j", "2", "-o", "%-5i|%i"});
  EXPECT_EQ(dash.err, "squeue: error: Invalid job format specification: -\n");
  EXPECT_EQ(dash.out, "%-5i|2\n");
}

// squeue -S: keys in order, '-' descending; ties keep the list's order.
TEST_F(SqueueFieldsTest, SortKeys) {
  EXPECT_EQ(Run({"-h", "-S", "i", "-o", "%i"}).out, "1\n2\n4_1\n4_2\n4_[3-9%2]\n");
  EXPECT_EQ(Run({"-h", "-S", "-i", "-o", "%i"}).out, "4_[3-9%2]\n4_2\n4_1\n2\n1\n");
  EXPECT_EQ(Run({"-h", "-S", "-P,i,,t", "-o", "%i %P"}).out,
            "1 gpu\n2 gpu\n4_1 cpu\n4_2 cpu\n4_[3-9%2] cpu\n");
  EXPECT_EQ(Run({"-h", "-S", "l", "-o", "%i"}).out, "4_1\n4_2\n4_[3-9%2]\n1\n2\n");
  EXPECT_EQ(Run({"-h", "-S", "e", "-o", "%i"}).out, "2\n4_[3-9%2]\n4_1\n4_2\n1\n");
  EXPECT_EQ(Run({"-h", "-S", "C", "-o", "%i"}).out, "2\n4_1\n4_2\n4_[3-9%2]\n1\n");
}

// $ squeue -S jobid: the header, "squeue: Invalid sort specification: b" (keys are read from
// the last), then the error for 'o', and exit 1.
TEST_F(SqueueFieldsTest, BadSortKeys) {
  const SqueueOutput r = Run({"-S", "jobid", "-o", "%i"});
  EXPECT_EQ(r.out, "JOBID\n");
  EXPECT_EQ(r.err,
            "squeue: Invalid sort specification: b\n"
            "squeue: error: Invalid sort specification: o\n");
  EXPECT_EQ(r.exit_code, 1);
  const SqueueOutput b = Run({"-h", "-S", "b", "-o", "%i", "-j", "2"});
  EXPECT_EQ(b.out, "2\n");
  EXPECT_EQ(b.exit_code, 0);
}

TEST_F(SqueueFieldsTest, Filters) {
  jobs_.mutable_jobs(0)->mutable_spec()->set_account("ml");
  jobs_.mutable_jobs(0)->set_qos("high");
  jobs_.mutable_jobs(1)->set_user_id(1001);
  jobs_.mutable_jobs(1)->set_user_name("alice");
  EXPECT_EQ(Run({"-h", "-A", "ml", "-o", "%i"}).out, "1\n");
  EXPECT_EQ(Run({"-h", "-q", "high,normal", "-o", "%i"}).out, "1\n");
  EXPECT_EQ(Run({"-h", "--name=held,runA", "-o", "%i"}).out, "2\n1\n");
  EXPECT_EQ(Run({"-h", "-w", "gpu[002-003]", "-o", "%i"}).out, "4_1\n4_2\n1\n");
  EXPECT_EQ(Run({"-h", "-u", "alice", "-o", "%i"}).out, "2\n");
  EXPECT_EQ(Run({"-h", "-p", "cpu", "-t", "R", "-o", "%i"}).out, "4_1\n4_2\n");
  EXPECT_EQ(Run({"-h", "-t", "SUSPENDED", "-o", "%i"}).out, "");
}

TEST_F(SqueueFieldsTest, IterateAndLongPrintTheDate) {
  EXPECT_EQ(Run({"-i", "1", "-j", "1", "-o", "%i"}).out, "Thu Dec 03 14:53:53 2026\nJOBID\n1\n");
  EXPECT_EQ(Run({"-i", "1", "-h", "-j", "1", "-o", "%i"}).out, "1\n");
  EXPECT_EQ(Run({"-l", "-j", "1", "-O", "jobid:5"}).out,
            "Thu Dec 03 14:53:53 2026\nJOBID\n1    \n");
}

TEST_F(SqueueFieldsTest, MemoryAndOtherRequests) {
  canopy::v1::JobSpec* spec = jobs_.mutable_jobs(1)->mutable_spec();
  spec->set_mem_per_node_mib(4096);
  spec->set_exclusive(true);
  spec->set_comment("hello");
  spec->set_nice(5);
  spec->set_required_nodes("gpu[001-002]");
  EXPECT_EQ(Run({"-h", "-j", "2", "-o", "%m|%h|%k|%y|%n"}).out, "4G|NO|hello|5|gpu[001-002]\n");
  EXPECT_EQ(Run({"-h", "-j", "2", "--noconvert", "-o", "%m"}).out, "4096M\n");
  spec->set_mem_per_node_mib(1500);
  EXPECT_EQ(Run({"-h", "-j", "2", "-o", "%m"}).out, "1.46G\n");
  canopy::v1::JobDependency* d = spec->add_dependencies();
  d->set_type(canopy::v1::JobDependency::TYPE_AFTER_OK);
  d->set_job_id(1);
  EXPECT_EQ(Run({"-h", "-j", "2", "-o", "%E"}).out, "afterok:1(unfulfilled)\n");
}

// $ squeue -t all -O jobid:4,state:10,exit_code:6,reasonlist:20 after "exit 3", "true" and a
// time-out: the exit code is the wait status; failed and timed-out jobs show their reason.
TEST_F(SqueueFieldsTest, FinishedJobs) {
  jobs_.clear_jobs();
  const auto finished = [this](uint32_t id, canopy::v1::JobState state, int code, int signal,
                               const std::string& reason) {
    canopy::v1::Job* j = Add(id, "f", "gpu", {"gpu001"}, 1);
    j->set_state(state);
    j->set_exit_code(code);
    j->set_exit_signal(signal);
    j->set_reason(reason);
    j->mutable_end_time()->set_seconds(kFieldsNow);
  };
  finished(4, canopy::v1::JOB_STATE_TIMEOUT, 0, 15, "TimeLimit");
  finished(13, canopy::v1::JOB_STATE_FAILED, 3, 0, "NonZeroExitCode");
  finished(14, canopy::v1::JOB_STATE_COMPLETED, 0, 0, "None");
  EXPECT_EQ(Run({"-h", "-t", "all", "-S", "-i", "-O",
                 "jobid:4,state:10,exit_code:6,reasonlist:20,tres-alloc:25"})
                .out,
            "14  COMPLETED 0     gpu001              cpu=1,node=1,billing=1   \n"
            "13  FAILED    768   (NonZeroExitCode)   cpu=1,node=1,billing=1   \n"
            "4   TIMEOUT   15    (TimeLimit)         cpu=1,node=1,billing=1   \n");
  EXPECT_EQ(Run({"-h", "-t", "CD,F", "-S", "-i", "-o", "%i %t %e %M %L"}).out,
            "14 CD 2026-12-03T14:53:53 0:08 UNLIMITED\n13 F 2026-12-03T14:53:53 0:08 UNLIMITED\n");
}

}  // namespace
}  // namespace canopy::ctl::squeue
