#include "scheduler/server/job_read_mask.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::server {
namespace {

google::protobuf::FieldMask Mask(std::initializer_list<const char*> paths) {
  google::protobuf::FieldMask mask;
  for (const char* p : paths) {
    mask.add_paths(p);
  }
  return mask;
}

canopy::v1::Job Record() {
  canopy::v1::Job job;
  job.set_job_id(7);
  job.set_state(canopy::v1::JOB_STATE_RUNNING);
  job.set_user_name("alice");
  job.add_nodes("gpu001");
  job.mutable_spec()->set_name("train");
  job.mutable_spec()->set_script("#!/bin/sh\n");
  job.mutable_spec()->set_min_nodes(2);
  job.mutable_start_time()->set_seconds(100);
  return job;
}

TEST(JobReadMaskTest, AnEmptyMaskKeepsEveryField) {
  absl::StatusOr<JobReadMask> mask = JobReadMask::Parse(Mask({}));
  ASSERT_TRUE(mask.ok());
  EXPECT_TRUE(mask->all());
  EXPECT_TRUE(mask->wants(canopy::v1::Job::kSpecFieldNumber));
  EXPECT_TRUE(mask->spec_fields()(canopy::v1::JobSpec::kScriptFieldNumber));
  canopy::v1::Job job = Record();
  mask->Trim(job);
  EXPECT_EQ(job.DebugString(), Record().DebugString());
}

TEST(JobReadMaskTest, TrimsToThePathsAndTellsWhetherTheSpecIsWanted) {
  absl::StatusOr<JobReadMask> mask = JobReadMask::Parse(Mask({"job_id", "state", "nodes"}));
  ASSERT_TRUE(mask.ok()) << mask.status();
  using J = canopy::v1::Job;
  using S = canopy::v1::JobSpec;
  EXPECT_TRUE(mask->wants(J::kJobIdFieldNumber));
  EXPECT_TRUE(mask->wants(J::kNodesFieldNumber));
  EXPECT_FALSE(mask->wants(J::kSpecFieldNumber));
  EXPECT_FALSE(mask->wants(J::kStepsFieldNumber));
  EXPECT_TRUE(mask->spec_fields().none());
  canopy::v1::Job job = Record();
  mask->Trim(job);
  EXPECT_EQ(job.DebugString(), Record().DebugString()) << "nothing below a field to trim";

  mask = JobReadMask::Parse(Mask({"job_id", "spec.name", "spec.min_nodes"}));
  ASSERT_TRUE(mask.ok());
  EXPECT_TRUE(mask->wants(J::kSpecFieldNumber));
  EXPECT_TRUE(mask->spec_fields()(S::kNameFieldNumber));
  EXPECT_TRUE(mask->spec_fields()(S::kMinNodesFieldNumber));
  EXPECT_FALSE(mask->spec_fields()(S::kScriptFieldNumber));

  mask = JobReadMask::Parse(Mask({"spec.name", "spec"}));
  ASSERT_TRUE(mask.ok());
  EXPECT_TRUE(mask->spec_fields()(S::kScriptFieldNumber)) << "\"spec\" is the whole spec";

  // A path inside a field converts the field, then trims it.
  mask = JobReadMask::Parse(Mask({"job_id", "start_time.seconds"}));
  ASSERT_TRUE(mask.ok());
  EXPECT_TRUE(mask->wants(J::kStartTimeFieldNumber));
  job = Record();
  job.mutable_start_time()->set_nanos(5);
  mask->Trim(job);
  EXPECT_EQ(job.start_time().seconds(), 100);
  EXPECT_EQ(job.start_time().nanos(), 0);
  EXPECT_FALSE(job.has_spec());
}

TEST(JobReadMaskTest, AnUnknownPathIsRefusedByName) {
  for (const char* bad : {"jobid", "spec.nope", "state.name", ""}) {
    absl::StatusOr<JobReadMask> mask = JobReadMask::Parse(Mask({"job_id", bad}));
    ASSERT_FALSE(mask.ok()) << bad;
    EXPECT_EQ(mask.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(mask.status().message(),
                ::testing::HasSubstr(absl::StrCat("'", bad, "' is not a field of canopy.v1.Job")));
  }
}

}  // namespace
}  // namespace canopy::server
