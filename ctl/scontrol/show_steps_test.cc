// `scontrol show steps`: step ids as scontrol reads them, Slurm's "not found" wording, and the
// record built field for field from Slurm 22.05's slurm_sprint_job_step_info format
// ("StepId=%s UserId=%u StartTime=%s TimeLimit=%s", "State=%s Partition=%s NodeList=%s",
// "Nodes=%s CPUs=%u Tasks=%u Name=%s Network=%s", "TRES=%s", "ResvPorts=%s",
// "CPUFreqReq=Default Dist=%s", "SrunHost:Pid=%s:%u").
#include "ctl/scontrol/show_steps.h"

#include "absl/time/civil_time.h"
#include "gtest/gtest.h"

namespace canopy::ctl::scontrol {
namespace {

canopy::v1::Job RunningJob() {
  canopy::v1::Job job;
  job.set_job_id(5);
  job.set_user_id(1000);
  job.set_partition("gpu");
  job.add_nodes("gpu001");
  job.add_nodes("gpu002");
  job.add_mem_allocated_mib(2048);
  job.add_mem_allocated_mib(2048);
  canopy::v1::JobStep* s = job.add_steps();
  s->set_step_id(0);
  s->set_name("hostname");
  s->set_state(canopy::v1::JOB_STATE_RUNNING);
  s->add_nodes("gpu001");
  s->add_nodes("gpu002");
  s->mutable_start_time()->set_seconds(absl::ToUnixSeconds(
      absl::FromCivil(absl::CivilSecond(2026, 12, 2, 9, 43, 39), absl::UTCTimeZone())));
  s->set_ntasks(2);
  s->set_cpus(2);
  return job;
}

TEST(ShowStepsTest, RecordInSlurmLayout) {
  const canopy::v1::Job job = RunningJob();
  EXPECT_EQ(RenderStep(job, job.steps(0), absl::UTCTimeZone(), false),
            "StepId=5.0 UserId=1000 StartTime=2026-12-02T09:43:39 TimeLimit=UNLIMITED\n"
            "   State=RUNNING Partition=gpu NodeList=gpu[001-002]\n"
            "   Nodes=2 CPUs=2 Tasks=2 Name=hostname Network=(null)\n"
            "   TRES=cpu=2,mem=4G,node=2\n"
            "   ResvPorts=(null)\n"
            "   CPUFreqReq=Default Dist=Block\n"
            "   SrunHost:Pid=(null):0\n"
            "\n");
}

TEST(ShowStepsTest, OneLinerArrayTaskAndJobWithoutMemory) {
  canopy::v1::Job job = RunningJob();
  job.set_array_job_id(7);
  job.set_array_task_id(2);
  job.clear_mem_allocated_mib();
  job.mutable_steps(0)->clear_state();  // listed steps are running
  EXPECT_EQ(RenderStep(job, job.steps(0), absl::UTCTimeZone(), true),
            "StepId=7_2.0 UserId=1000 StartTime=2026-12-02T09:43:39 TimeLimit=UNLIMITED "
            "State=RUNNING Partition=gpu NodeList=gpu[001-002] Nodes=2 CPUs=2 Tasks=2 "
            "Name=hostname Network=(null) TRES=cpu=2,mem=0,node=2 ResvPorts=(null) "
            "CPUFreqReq=Default Dist=Block SrunHost:Pid=(null):0\n");
}

TEST(ShowStepsTest, StepIds) {
  absl::StatusOr<StepTarget> t = ParseStepTarget("5.1");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->job_id, 5u);
  EXPECT_EQ(t->step_id, 1u);
  EXPECT_FALSE(t->task.has_value());
  t = ParseStepTarget("7_2.0");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->job_id, 7u);
  EXPECT_EQ(t->task, 2u);
  EXPECT_EQ(t->step_id, 0u);
  t = ParseStepTarget("5");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_FALSE(t->step_id.has_value());
  EXPECT_FALSE(t->batch);
  t = ParseStepTarget("7_2.batch");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(t->batch);
  EXPECT_FALSE(t->step_id.has_value());
  for (const char* bad : {"x", "5.x", "5.", "0", "_1", "5_x.0", "-5", "5.Batch"}) {
    EXPECT_EQ(ParseStepTarget(bad).status().message(),
              "slurm_get_job_steps error: Invalid job id specified")
        << bad;
  }
}

TEST(ShowStepsTest, NotFoundMessages) {
  EXPECT_EQ(StepNotFound(*ParseStepTarget("5.3")), "Job step 5.3 not found");
  EXPECT_EQ(StepNotFound(*ParseStepTarget("7_2.1")), "Job step 7_2.1 not found");
  // No step given: Slurm prints its NO_VAL step number.
  EXPECT_EQ(StepNotFound(*ParseStepTarget("5")), "Job step 5.4294967294 not found");
}

// Slurm 22.05.8, `scontrol show steps` with a batch job running on gpu001.
TEST(ShowStepsTest, TheBatchScriptsStepAsSlurmListsIt) {
  canopy::v1::Job job = RunningJob();
  job.set_state(canopy::v1::JOB_STATE_RUNNING);
  job.set_user_id(0);
  job.set_job_id(1);
  job.mutable_spec()->set_script("#!/bin/sh\nsleep 60\n");
  job.mutable_start_time()->set_seconds(absl::ToUnixSeconds(
      absl::FromCivil(absl::CivilSecond(2026, 12, 7, 17, 16, 7), absl::UTCTimeZone())));
  ASSERT_TRUE(HasBatchStep(job));
  EXPECT_EQ(RenderBatchStep(job, absl::UTCTimeZone(), false),
            "StepId=1.batch UserId=0 StartTime=2026-12-07T17:16:07 TimeLimit=UNLIMITED\n"
            "   State=RUNNING Partition=gpu NodeList=gpu001\n"
            "   Nodes=1 CPUs=0 Tasks=1 Name=batch Network=(null)\n"
            "   TRES=(null)\n"
            "   ResvPorts=(null)\n"
            "   CPUFreqReq=Default\n"
            "   SrunHost:Pid=(null):0\n"
            "\n");
  job.set_array_job_id(6);
  job.set_array_task_id(2);
  EXPECT_EQ(RenderBatchStep(job, absl::UTCTimeZone(), true),
            "StepId=6_2.batch UserId=0 StartTime=2026-12-07T17:16:07 TimeLimit=UNLIMITED "
            "State=RUNNING Partition=gpu NodeList=gpu001 Nodes=1 CPUs=0 Tasks=1 Name=batch "
            "Network=(null) TRES=(null) ResvPorts=(null) CPUFreqReq=Default "
            "SrunHost:Pid=(null):0\n");
  EXPECT_EQ(StepNotFound(*ParseStepTarget("5.batch")), "Job step 5.batch not found");
  // srun's own allocation runs no script; a pending or ended job has no running step.
  job.mutable_spec()->clear_script();
  EXPECT_FALSE(HasBatchStep(job));
  job.mutable_spec()->set_script("#!/bin/sh\n");
  job.set_state(canopy::v1::JOB_STATE_COMPLETED);
  EXPECT_FALSE(HasBatchStep(job));
}

}  // namespace
}  // namespace canopy::ctl::scontrol
