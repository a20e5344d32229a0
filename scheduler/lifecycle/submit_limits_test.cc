// Submit limits (submit_limits.h): each refused with Slurm's words before anything is queued,
// and a request just inside each limit accepted. Each of these was accepted before (an array of
// any size, a 100 MiB script, a queue without bound).
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/lifecycle/policy_test_fixture.h"

namespace canopy::lifecycle {
namespace {

using ::testing::HasSubstr;
using Ask = policy_testing::PolicyTest::Ask;

constexpr char kTooLong[] =
    "Batch job submission failed: Pathname of a file, directory or other parameter too long";

class SubmitLimitsTest : public policy_testing::PolicyTest {};

TEST_F(SubmitLimitsTest, ScriptAboveMaxScriptSizeIsRefused) {
  Start("scheduler:\n  parameters: max_script_size=1024\n");
  const std::string at_limit = "#!/bin/sh\n" + std::string(1024 - 10, '#');
  EXPECT_TRUE(TrySubmit(alice_, Ask().With([&](core::JobSpec& s) { s.script = at_limit; })).ok());
  absl::StatusOr<uint32_t> over =
      TrySubmit(alice_, Ask().With([&](core::JobSpec& s) { s.script = at_limit + "#"; }));
  EXPECT_EQ(over.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(over.status().message(),
              HasSubstr("the batch script is 1025 bytes, more than the 1024 allowed"));
  EXPECT_THAT(over.status().message(), HasSubstr(kTooLong));
}

TEST_F(SubmitLimitsTest, DefaultScriptLimitIsFourMebibytes) {
  Start("");
  const std::string big = "#!/bin/sh\n" + std::string(4 * 1024 * 1024, '#');
  EXPECT_THAT(
      TrySubmit(alice_, Ask().With([&](core::JobSpec& s) { s.script = big; })).status().message(),
      HasSubstr("more than the 4194304 allowed"));
}

TEST_F(SubmitLimitsTest, TextFieldsArgumentsAndEnvironmentAreBounded) {
  Start("");
  EXPECT_THAT(TrySubmit(alice_, Ask().With([](core::JobSpec& s) { s.name.assign(1025, 'n'); }))
                  .status()
                  .message(),
              HasSubstr("job name is 1025 bytes, more than the 1024 allowed"));
  EXPECT_TRUE(
      TrySubmit(alice_, Ask().With([](core::JobSpec& s) { s.name.assign(1024, 'n'); })).ok());
  EXPECT_THAT(TrySubmit(alice_, Ask().With([](core::JobSpec& s) { s.comment.assign(5000, 'c'); }))
                  .status()
                  .message(),
              HasSubstr("comment is 5000 bytes"));
  EXPECT_THAT(TrySubmit(alice_, Ask().With([](core::JobSpec& s) {
                s.stdout_path = "/tmp/" + std::string(5000, 'o');
              }))
                  .status()
                  .message(),
              HasSubstr("output path is 5005 bytes, more than the 4096 allowed"));
  EXPECT_THAT(TrySubmit(alice_, Ask().With([](core::JobSpec& s) {
                s.argv.push_back(std::string(200 * 1024, 'a'));
              }))
                  .status()
                  .message(),
              HasSubstr("argument 1 is 204800 bytes"));
  absl::StatusOr<uint32_t> env = TrySubmit(alice_, Ask().With([](core::JobSpec& s) {
    std::map<std::string, std::string> big;
    for (int i = 0; i < 64; ++i) {
      big["V" + std::to_string(i)] = std::string(100 * 1024, 'e');
    }
    s.environment = std::move(big);
  }));
  // 64 variables of 100 KiB, each with its name, '=' and NUL.
  EXPECT_THAT(env.status().message(),
              HasSubstr("the arguments and environment together is 6553910 bytes, more than the "
                        "4194304 allowed"));
  EXPECT_THAT(env.status().message(), HasSubstr(kTooLong));
}

TEST_F(SubmitLimitsTest, ArrayTaskIdsMustBeBelowMaxArraySize) {
  Start("scheduler:\n  max_array_size: 10\n");
  EXPECT_TRUE(TrySubmit(alice_, Ask().With([](core::JobSpec& s) { s.array_spec = "0-9"; })).ok());
  absl::StatusOr<uint32_t> over =
      TrySubmit(alice_, Ask().With([](core::JobSpec& s) { s.array_spec = "5-10"; }));
  EXPECT_EQ(over.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(over.status().message(), HasSubstr("task id 10 is not below MaxArraySize (10)"));
  EXPECT_THAT(over.status().message(),
              HasSubstr("\nBatch job submission failed: Invalid job array specification"));
  // The default is Slurm's 1001: ids 0 to 1000.
  Start("");
  EXPECT_TRUE(TrySubmit(alice_, Ask().With([](core::JobSpec& s) { s.array_spec = "1000"; })).ok());
  EXPECT_FALSE(
      TrySubmit(alice_, Ask().With([](core::JobSpec& s) { s.array_spec = "0-4000000000"; })).ok());
}

TEST_F(SubmitLimitsTest, MaxJobCountCountsEveryTaskAndFinishedJobsUntilTheyLeave) {
  Start("scheduler:\n  max_job_count: 5\n");
  ASSERT_TRUE(TrySubmit(alice_, Ask().With([](core::JobSpec& s) { s.array_spec = "0-2"; })).ok());
  // 3 held; 3 + 2 would reach 5: refused, as Slurm refuses at (count + new) >= MaxJobCount.
  absl::StatusOr<uint32_t> two =
      TrySubmit(bob_, Ask().With([](core::JobSpec& s) { s.array_spec = "0-1"; }));
  EXPECT_EQ(two.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(two.status().message(),
              HasSubstr("Resource temporarily unavailable (MaxJobCount=5 reached"));
  EXPECT_TRUE(TrySubmit(bob_, Ask()).ok());
  EXPECT_EQ(TrySubmit(bob_, Ask()).status().code(), absl::StatusCode::kResourceExhausted);
}

// An array's tasks hold one script and one environment between them (each held its own copy:
// --array=0-1000 with a 4 MiB script took 4 GiB), and what all jobs hold is bounded.
TEST_F(SubmitLimitsTest, ArrayTasksShareTheirScriptAndScriptMemoryIsBounded) {
  Start("scheduler:\n  max_script_memory_mib: 16\n");
  const int64_t before = core::SharedTextBytes();
  const std::string mebibyte = "#!/bin/sh\n" + std::string(1024 * 1024, '#');
  absl::StatusOr<uint32_t> array = TrySubmit(alice_, Ask().With([&](core::JobSpec& s) {
    s.array_spec = "0-199";
    s.script = mebibyte;
    s.environment = std::map<std::string, std::string>{{"BIG", std::string(64 * 1024, 'e')}};
  }));
  ASSERT_TRUE(array.ok()) << array.status();
  EXPECT_LT(core::SharedTextBytes() - before, 2 * 1024 * 1024);
  const core::Job* first = jobs_->Find(core::JobId(*array));
  const core::Job* last = jobs_->Find(core::JobId(*array + 199));
  ASSERT_NE(first, nullptr);
  ASSERT_NE(last, nullptr);
  EXPECT_TRUE(first->spec->script.SharesWith(last->spec->script));
  EXPECT_TRUE(first->spec->environment.SharesWith(last->spec->environment));

  // Distinct scripts of 1 MiB each: the 16 MiB are reached within 16 of them.
  absl::Status refused = absl::OkStatus();
  for (int i = 0; i < 16 && refused.ok(); ++i) {
    refused = TrySubmit(bob_, Ask().With([&](core::JobSpec& s) {
                s.script = mebibyte + std::to_string(i);
              })).status();
  }
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.message(),
              HasSubstr("Resource temporarily unavailable (the batch scripts and environments "
                        "canopyd holds would take 17 MiB with this submission, more than its 16 "
                        "MiB (scheduler.max_script_memory_mib)"));
}

TEST_F(SubmitLimitsTest, MaxSubmitJobsCountsPendingAndRunningJobsOfTheUser) {
  Start("accounting:\n  storage_enforce: associations,limits\n");
  fairshare::AssociationSpec vision;
  vision.account = "vision";
  vision.attributes = {{"MaxSubmitJobs", "3"}};
  fairshare::AssociationSpec alice = vision;
  alice.user = "alice";
  alice.attributes.clear();  // inherits 3 from the account
  fairshare::AssociationSpec bob = alice;
  bob.user = "bob";
  ASSERT_TRUE(SetAssociations({vision, alice, bob}).ok());
  const uint32_t first = Submit(alice_, Ask());
  Submit(alice_, Ask());
  absl::StatusOr<uint32_t> array =
      TrySubmit(alice_, Ask().With([](core::JobSpec& s) { s.array_spec = "0-1"; }));
  EXPECT_EQ(array.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(array.status().message(),
              HasSubstr("AssocMaxSubmitJobLimit (user alice in account vision: "
                        "MaxSubmitJobs=3, 2 pending or running, 2 more asked)"));
  EXPECT_THAT(array.status().message(),
              HasSubstr("\nBatch job submission failed: Job violates accounting/QOS policy "
                        "(job submit limit, user's size and/or time limits)"));
  Submit(alice_, Ask());
  EXPECT_FALSE(TrySubmit(alice_, Ask()).ok());
  EXPECT_TRUE(TrySubmit(bob_, Ask()).ok());  // per user
  // A job that ended no longer counts.
  Effects e;
  CancelRequest cancel;
  cancel.job_ids = {first};
  jobs_->Cancel(cancel, alice_, e);
  Commit(e);
  EXPECT_TRUE(TrySubmit(alice_, Ask()).ok());
}

}  // namespace
}  // namespace canopy::lifecycle
