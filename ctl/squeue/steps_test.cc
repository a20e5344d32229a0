// squeue -s: the steps of running jobs, against what Slurm 22.05's squeue printed for a job
// running "srun -N2 sleep 1000" in a batch script and a running array task.
#include "ctl/squeue/render.h"
#include "gtest/gtest.h"

namespace canopy::ctl::squeue {
namespace {

constexpr int64_t kStepsNow = 1796309633;  // 2026-12-03T14:53:53Z
constexpr int64_t kStepStart = kStepsNow - 8;

class SqueueStepsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    jobs_.mutable_server_time()->set_seconds(kStepsNow);
    canopy::v1::Job* a = Add(1, "runA", "gpu", {"gpu001", "gpu002"});
    canopy::v1::JobStep* step = a->add_steps();
    step->set_step_id(0);
    step->set_name("sleep");
    step->set_state(canopy::v1::JOB_STATE_RUNNING);
    step->add_nodes("gpu001");
    step->add_nodes("gpu002");
    step->mutable_start_time()->set_seconds(kStepStart);
    step->set_ntasks(2);
    step->set_cpus(2);
    canopy::v1::Job* t = Add(5, "arr", "cpu", {"gpu003"});
    t->set_array_job_id(4);
    t->set_array_task_id(1);
    canopy::v1::Job* pending = Add(2, "held", "gpu", {});
    pending->set_state(canopy::v1::JOB_STATE_PENDING);
    pending->clear_start_time();
  }

  canopy::v1::Job* Add(uint32_t id, const std::string& name, const std::string& partition,
                       std::vector<std::string> nodes) {
    canopy::v1::Job* j = jobs_.add_jobs();
    j->set_job_id(id);
    j->mutable_spec()->set_name(name);
    j->mutable_spec()->set_script("#!/bin/sh\nsrun sleep 1000\n");
    j->set_state(canopy::v1::JOB_STATE_RUNNING);
    j->set_user_name("root");
    j->set_partition(partition);
    j->mutable_start_time()->set_seconds(kStepStart);
    for (const std::string& n : nodes) {
      j->add_nodes(n);
    }
    return j;
  }

  std::string Render(const std::vector<std::string>& args) {
    absl::StatusOr<SqueueOptions> o = ParseSqueueArgs(args);
    EXPECT_TRUE(o.ok()) << o.status();
    return RenderSqueue(*o, jobs_, absl::UTCTimeZone());
  }

  canopy::v1::ListJobsResponse jobs_;
};

TEST_F(SqueueStepsTest, DefaultMatchesSlurm) {
  EXPECT_EQ(Render({"-s"}),
            "         STEPID     NAME PARTITION     USER      TIME NODELIST\n"
            "      4_1.batch    batch       cpu     root      0:08 gpu003\n"
            "            1.0    sleep       gpu     root      0:08 gpu[001-002]\n"
            "        1.batch    batch       gpu     root      0:08 gpu001\n");
}

TEST_F(SqueueStepsTest, LongAddsTheDate) {
  EXPECT_EQ(Render({"-s", "-l", "-j", "1", "-h"}),
            "            1.0    sleep       gpu     root      0:08 gpu[001-002]\n"
            "        1.batch    batch       gpu     root      0:08 gpu001\n");
  EXPECT_EQ(Render({"-s", "-l", "-j", "1"}).substr(0, 25), "Thu Dec 03 14:53:53 2026\n");
}

// $ squeue -s 1.0  /  -s 1.batch (read as step 0)  /  -s 4_1.batch (matches nothing)
TEST_F(SqueueStepsTest, StepListFilters) {
  EXPECT_EQ(Render({"-h", "-s", "1.0"}),
            "            1.0    sleep       gpu     root      0:08 gpu[001-002]\n");
  EXPECT_EQ(Render({"-h", "--steps=1.batch"}),
            "            1.0    sleep       gpu     root      0:08 gpu[001-002]\n");
  EXPECT_EQ(Render({"-h", "-s", "4_1.batch"}), "");
}

TEST_F(SqueueStepsTest, FormatsAndFields) {
  EXPECT_EQ(Render({"-s", "-o", "%i %j", "-j", "1"}), "STEPID NAME\n1.0 sleep\n1.batch batch\n");
  EXPECT_EQ(Render({"-s", "-h", "-o", "%A|%U|%l|%S|%b", "-j", "1"}),
            "2|0|UNLIMITED|2026-12-03T14:53:45|(null)\n"
            "1|0|UNLIMITED|2026-12-03T14:53:45|(null)\n");
  EXPECT_EQ(Render({"-s", "-O", "nodes:20,jobid:8,numcpus:4,arraytaskid:5"}),
            "NODELIST            JOB_ID  NUM_ARRAY\n"
            "gpu003              5       0   1    \n"
            "gpu[001-002]        1       2   N/A  \n"
            "gpu001              1       0   N/A  \n");
}

}  // namespace
}  // namespace canopy::ctl::squeue
