// squeue's read mask: every -o letter, sort key, filter and mode prints the same from records
// trimmed to the mask as from whole ones; and the mask is whole records where the table does
// not reach.
#include "ctl/squeue/read_mask.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ctl/squeue/fields.h"
#include "ctl/squeue/render.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/field_mask_util.h"
#include "gtest/gtest.h"

namespace canopy::ctl::squeue {
namespace {

using canopy::v1::Job;
using canopy::v1::JobState;

constexpr int64_t kMaskNow = 1796309633;

// A record with every field squeue may read set, each job differently.
Job Full(uint32_t id, JobState state, int variant) {
  Job j;
  j.set_job_id(id);
  j.set_state(state);
  j.set_reason(state == canopy::v1::JOB_STATE_PENDING ? (variant % 2 ? "Priority" : "JobHeldUser")
                                                      : "None");
  j.set_user_id(1000 + variant);
  j.set_group_id(100 + variant);
  j.set_user_name(variant == 3 ? "" : "user" + std::to_string(variant));
  j.set_partition(variant == 2 ? "" : (variant % 2 ? "gpu" : "cpu"));
  j.set_priority(50 + 7 * variant);
  j.set_qos(variant == 1 ? "" : "high");
  j.mutable_submit_time()->set_seconds(kMaskNow - 1000 + variant * 10);
  j.set_exit_code(variant);
  j.set_exit_signal(variant == 4 ? 9 : 0);
  j.set_restart_count(variant);
  j.set_placement_explanation("why " + std::to_string(variant));
  j.set_idempotency_key("k");
  j.set_state_message("msg");
  j.set_run_id(variant + 1);
  j.mutable_eligible_time()->set_seconds(kMaskNow - 900);
  if (state != canopy::v1::JOB_STATE_PENDING) {
    j.mutable_start_time()->set_seconds(kMaskNow - 500 + variant);
    for (int n = 0; n <= variant % 3; ++n) {
      j.add_nodes("gpu00" + std::to_string(n + variant));
      j.add_cpus_allocated(4);
      j.add_mem_allocated_mib(2048);
      j.add_gpus_per_node_allocated(2);
      j.add_node_gpu_indexes("0,1");
    }
    j.add_leaf_switches("leaf1");
  } else {
    j.mutable_expected_start()->set_seconds(kMaskNow + 300 * variant);
    j.add_expected_nodes("gpu009");
  }
  if (state == canopy::v1::JOB_STATE_COMPLETED || state == canopy::v1::JOB_STATE_FAILED) {
    j.mutable_end_time()->set_seconds(kMaskNow - 20);
  }
  if (variant != 0) {
    j.mutable_time_limit()->set_seconds(3600 * variant);
  }
  canopy::v1::JobSpec* s = j.mutable_spec();
  s->set_name("job" + std::to_string(variant));
  s->set_partition(variant == 2 ? "debug" : "");
  s->set_account(variant == 1 ? "" : "acct" + std::to_string(variant % 2));
  s->set_min_nodes(1 + variant % 3);
  s->set_max_nodes(4);
  s->set_ntasks(variant == 3 ? 8 : 0);
  s->set_ntasks_per_node(variant == 2 ? 2 : 0);
  s->set_cpus_per_task(1 + variant % 2);
  s->set_mem_per_node_mib(1024 * (variant + 1) + 5);
  s->set_gpus_per_node(variant % 3);
  s->set_gpu_type(variant == 1 ? "h100" : "");
  s->set_exclusive(variant == 4);
  s->set_exclusive_mode(variant == 3 ? "user" : "");
  s->set_required_nodes(variant == 2 ? "gpu[001-002]" : "");
  s->set_excluded_nodes(variant == 1 ? "gpu003" : "");
  s->set_script("#!/bin/sh\necho hi\n");
  s->add_argv("a");
  (*s->mutable_environment())["X"] = "1";
  s->set_work_dir("/home/user" + std::to_string(variant) + "/run");
  s->set_stdout_path(variant == 2 ? "out-%j" : "");
  s->set_nice(variant);
  s->set_comment(variant == 1 ? "note" : "");
  s->set_wckey(variant == 2 ? "wk" : "");
  s->set_reservation(variant == 3 ? "resv" : "");
  s->set_submit_host("login1");
  s->set_container(variant == 4 ? "/oci" : "");
  s->set_cpus_per_gpu(variant == 1 ? 4 : 0);
  s->mutable_deadline()->set_seconds(variant == 2 ? kMaskNow + 9999 : 0);
  s->set_mail_type(variant == 1 ? "END" : "");
  if (variant == 2) {
    canopy::v1::JobDependency* d = s->add_dependencies();
    d->set_type(canopy::v1::JobDependency::TYPE_AFTER_OK);
    d->set_job_id(1);
    s->set_dependency_any(true);
  }
  return j;
}

canopy::v1::ListJobsResponse Jobs() {
  canopy::v1::ListJobsResponse jobs;
  jobs.mutable_server_time()->set_seconds(kMaskNow);
  *jobs.add_jobs() = Full(1, canopy::v1::JOB_STATE_RUNNING, 0);
  *jobs.add_jobs() = Full(2, canopy::v1::JOB_STATE_PENDING, 1);
  *jobs.add_jobs() = Full(3, canopy::v1::JOB_STATE_RUNNING, 2);
  *jobs.add_jobs() = Full(4, canopy::v1::JOB_STATE_COMPLETED, 3);
  *jobs.add_jobs() = Full(5, canopy::v1::JOB_STATE_FAILED, 4);
  *jobs.add_jobs() = Full(6, canopy::v1::JOB_STATE_COMPLETING, 2);
  *jobs.add_jobs() = Full(7, canopy::v1::JOB_STATE_PENDING, 3);
  for (uint32_t task = 1; task <= 4; ++task) {
    Job t =
        Full(20 + task, task == 1 ? canopy::v1::JOB_STATE_RUNNING : canopy::v1::JOB_STATE_PENDING,
             static_cast<int>(task));
    t.set_array_job_id(20);
    t.set_array_task_id(task);
    t.mutable_spec()->set_array_spec("1-4%2");
    *jobs.add_jobs() = t;
  }
  canopy::v1::JobStep* step = jobs.mutable_jobs(0)->add_steps();
  step->set_step_id(0);
  step->set_name("srun");
  step->add_nodes("gpu000");
  return jobs;
}

canopy::v1::ListJobsResponse Trimmed(canopy::v1::ListJobsResponse jobs,
                                     const std::vector<std::string>& paths) {
  google::protobuf::FieldMask mask;
  for (const std::string& p : paths) {
    mask.add_paths(p);
  }
  for (Job& job : *jobs.mutable_jobs()) {
    google::protobuf::util::FieldMaskUtil::TrimMessage(mask, &job);
  }
  return jobs;
}

SqueueOptions Options(const std::vector<std::string>& args) {
  absl::StatusOr<SqueueOptions> o = ParseSqueueArgs(args);
  EXPECT_TRUE(o.ok()) << o.status();
  return o.ok() ? *o : SqueueOptions();
}

// The same output from trimmed records as from whole ones; false (with a message) if not.
void ExpectSameFromTrimmed(const std::vector<std::string>& args) {
  const SqueueOptions options = Options(args);
  const std::vector<std::string> paths = ReadMaskPaths(options);
  const canopy::v1::ListJobsResponse jobs = Jobs();
  RenderEnvironment env;
  env.group_name = [](uint32_t gid) { return "g" + std::to_string(gid); };
  const SqueueOutput whole = RenderSqueueOutput(options, jobs, env);
  const SqueueOutput trimmed = RenderSqueueOutput(options, Trimmed(jobs, paths), env);
  EXPECT_EQ(trimmed.out, whole.out) << "squeue " << absl::StrJoin(args, " ");
  EXPECT_EQ(trimmed.err, whole.err) << "squeue " << absl::StrJoin(args, " ");
  EXPECT_EQ(NoRequestedJobFound(options, Trimmed(jobs, paths)), NoRequestedJobFound(options, jobs));
}

TEST(SqueueReadMaskTest, EveryLetterPrintsAndSortsTheSameFromTrimmedRecords) {
  int masked = 0;
  for (const JobField& field : JobFields()) {
    if (field.letter == '\0') {
      continue;
    }
    const std::string letter(1, field.letter);
    const std::string format = absl::StrCat("%", letter, "|%i");
    if (!ReadMaskPaths(Options({"-o", format})).empty()) {
      ++masked;
    }
    ExpectSameFromTrimmed({"-t", "all", "-o", format});
    ExpectSameFromTrimmed({"-r", "-o", format});
    ExpectSameFromTrimmed({"-t", "all", "-o", "%i", "-S", letter});
    ExpectSameFromTrimmed({"-t", "all", "-o", "%i", "-S", absl::StrCat("-", letter, ",i")});
  }
  EXPECT_GE(masked, 50) << "every -o letter has its paths";
}

TEST(SqueueReadMaskTest, ModesAndFiltersPrintTheSameFromTrimmedRecords) {
  const std::vector<std::vector<std::string>> cases = {
      {},
      {"-l"},
      {"--start"},
      {"-t", "all"},
      {"-t", "PD,R"},
      {"-r"},
      {"-j", "2,21"},
      {"-j", "999"},
      {"-j", "20"},
      {"-u", "user1,1003"},
      {"-A", "acct0"},
      {"-n", "job2"},
      {"-p", "gpu,debug"},
      {"-q", "high"},
      {"-w", "gpu002"},
      {"-t", "all", "-S", "P,-t,p"},
      {"-O", "jobid,username,state"},
      {"-s"},
      {"--json"},
  };
  for (const std::vector<std::string>& args : cases) {
    ExpectSameFromTrimmed(args);
  }
}

TEST(SqueueReadMaskTest, TheDefaultListAsksForATenthOfTheRecord) {
  const std::vector<std::string> paths = ReadMaskPaths(Options({}));
  EXPECT_THAT(paths, ::testing::IsSupersetOf({"job_id", "state", "spec.name", "reason"}));
  EXPECT_THAT(paths, ::testing::Not(::testing::Contains("spec")));
  EXPECT_THAT(paths, ::testing::Not(::testing::Contains("spec.script")));
  EXPECT_THAT(paths, ::testing::Not(::testing::Contains("steps")));
  EXPECT_LE(paths.size(), 24u);
}

TEST(SqueueReadMaskTest, WholeRecordsWhereTheTableDoesNotReach) {
  EXPECT_TRUE(ReadMaskPaths(Options({"--json"})).empty());
  EXPECT_TRUE(ReadMaskPaths(Options({"-s"})).empty());
  EXPECT_TRUE(ReadMaskPaths(Options({"-O", "jobid,exit_code"})).empty()) << "an -O-only name";
  EXPECT_TRUE(ReadMaskPaths(Options({"-S", "1"})).empty()) << "a key squeue refuses";
  EXPECT_FALSE(ReadMaskPaths(Options({"-O", "jobid,state"})).empty());

  canopy::v1::ListJobsRequest request;
  AddReadMask(Options({}), request);
  EXPECT_EQ(request.read_mask().paths_size(), static_cast<int>(ReadMaskPaths(Options({})).size()));
  AddReadMask(Options({"--json"}), request);
  EXPECT_EQ(request.read_mask().paths_size(), 0);
}

}  // namespace
}  // namespace canopy::ctl::squeue
