// sbatch --test-only's line, against the one Slurm 22.05 printed in
// tests/data/slurm-reference/accounting-outputs-22.05.txt; sbatch --wait's polling.
#include "ctl/sbatch/sbatch.h"

#include <algorithm>
#include <sstream>
#include <vector>

#include "gtest/gtest.h"

namespace canopy::ctl::sbatch {
namespace {

TEST(SbatchTestOnlyTest, LineMatchesSlurm) {
  canopy::v1::SubmitJobResponse r;
  r.set_job_id(1222);
  r.mutable_expected_start()->set_seconds(absl::ToUnixSeconds(
      absl::FromCivil(absl::CivilSecond(2026, 12, 3, 4, 11, 1), absl::UTCTimeZone())));
  for (const char* n : {"gpu013", "gpu014", "gpu015", "gpu016"}) {
    r.add_expected_nodes(n);
  }
  r.set_expected_cpus(4);
  r.set_partition("gpu");
  EXPECT_EQ(TestOnlyLine(r, absl::UTCTimeZone()),
            "Job 1222 to start at 2026-12-03T04:11:01 using 4 processors on nodes gpu[013-016] "
            "in partition gpu");
}

canopy::v1::Job JobIn(canopy::v1::JobState state, int exit_code = 0, int exit_signal = 0) {
  canopy::v1::Job job;
  job.set_state(state);
  job.set_exit_code(exit_code);
  job.set_exit_signal(exit_signal);
  return job;
}

// sbatch --wait against a scripted controller: each poll returns the next answer.
struct FakeController {
  std::vector<absl::StatusOr<canopy::v1::ListJobsResponse>> answers;
  size_t polls = 0;
  int sleeps = 0;

  int Wait(std::ostream& err) {
    return WaitForJob(
        7,
        [this]() -> absl::StatusOr<canopy::v1::ListJobsResponse> {
          return answers[std::min(polls++, answers.size() - 1)];
        },
        [this] { ++sleeps; }, err);
  }
};

canopy::v1::ListJobsResponse Jobs(std::vector<canopy::v1::Job> jobs) {
  canopy::v1::ListJobsResponse r;
  for (canopy::v1::Job& j : jobs) {
    *r.add_jobs() = std::move(j);
  }
  return r;
}

TEST(SbatchWaitTest, ReturnsTheJobsExitCodeOnceItEnds) {
  FakeController c;
  c.answers = {Jobs({JobIn(canopy::v1::JOB_STATE_PENDING)}),
               Jobs({JobIn(canopy::v1::JOB_STATE_RUNNING)}),
               Jobs({JobIn(canopy::v1::JOB_STATE_COMPLETING, 3)}),
               Jobs({JobIn(canopy::v1::JOB_STATE_FAILED, 3)})};
  std::ostringstream err;
  EXPECT_EQ(c.Wait(err), 3);
  EXPECT_EQ(c.sleeps, 4);  // a sleep before every poll
  EXPECT_EQ(err.str(), "");
}

TEST(SbatchWaitTest, SignalsRequeuesArraysAndErrors) {
  FakeController c;
  c.answers = {Jobs({JobIn(canopy::v1::JOB_STATE_CANCELLED, 0, 15)})};
  std::ostringstream err;
  EXPECT_EQ(c.Wait(err), 1);  // killed by a signal

  c = FakeController();
  c.answers = {absl::UnavailableError("cannot reach canopyd"),
               Jobs({JobIn(canopy::v1::JOB_STATE_REQUEUED)}),
               Jobs({JobIn(canopy::v1::JOB_STATE_COMPLETED), JobIn(canopy::v1::JOB_STATE_FAILED, 2),
                     JobIn(canopy::v1::JOB_STATE_RUNNING)}),
               Jobs({JobIn(canopy::v1::JOB_STATE_COMPLETED), JobIn(canopy::v1::JOB_STATE_FAILED, 2),
                     JobIn(canopy::v1::JOB_STATE_TIMEOUT, 0, 9)})};
  err.str("");
  EXPECT_EQ(c.Wait(err), 2);  // the highest exit code of the array's tasks
  EXPECT_EQ(c.polls, 4u);
  EXPECT_EQ(err.str(),
            "sbatch: error: Currently unable to load job state information, retrying: cannot "
            "reach canopyd\n");

  c = FakeController();
  c.answers = {Jobs({})};
  err.str("");
  EXPECT_EQ(c.Wait(err), 0);
  EXPECT_EQ(err.str(), "sbatch: error: Job 7 no longer found and exit code not found\n");
}

// MaxJobCount reached: sbatch says so once, then waits 1 s, 2 s, ... and tries again, up to 15
// retries, as Slurm's sbatch (MAX_RETRIES); other errors are not retried.
TEST(SbatchSubmitRetryTest, RetriesWhileTheControllerIsFull) {
  const absl::Status full = absl::ResourceExhaustedError(
      "Resource temporarily unavailable (MaxJobCount=5 reached: canopyd holds 5 jobs)");
  std::vector<absl::Duration> slept;
  int calls = 0;
  std::ostringstream err;
  canopy::v1::SubmitJobResponse ok;
  ok.set_job_id(42);
  absl::StatusOr<canopy::v1::SubmitJobResponse> r = SubmitRetryingWhileFull(
      [&]() -> absl::StatusOr<canopy::v1::SubmitJobResponse> {
        return ++calls < 4 ? absl::StatusOr<canopy::v1::SubmitJobResponse>(full) : ok;
      },
      [&](absl::Duration d) { slept.push_back(d); }, err);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->job_id(), 42u);
  EXPECT_EQ(slept,
            (std::vector<absl::Duration>{absl::Seconds(1), absl::Seconds(2), absl::Seconds(3)}));
  EXPECT_EQ(err.str(),
            "sbatch: error: Slurm temporarily unable to accept job, sleeping and retrying\n");

  calls = 0;
  slept.clear();
  r = SubmitRetryingWhileFull(
      [&]() -> absl::StatusOr<canopy::v1::SubmitJobResponse> {
        ++calls;
        return full;
      },
      [&](absl::Duration d) { slept.push_back(d); }, err);
  EXPECT_EQ(r.status(), full);
  EXPECT_EQ(calls, 16);  // the first try and 15 retries
  EXPECT_EQ(slept.back(), absl::Seconds(15));

  // gRPC's own RESOURCE_EXHAUSTED (a message over its limit) is not a full queue.
  calls = 0;
  r = SubmitRetryingWhileFull(
      [&]() -> absl::StatusOr<canopy::v1::SubmitJobResponse> {
        ++calls;
        return absl::ResourceExhaustedError("Received message larger than max");
      },
      [&](absl::Duration) {}, err);
  EXPECT_EQ(calls, 1);

  // Every RPC thread of canopyd busy (canopyd --max_rpc_threads): retried like a full queue.
  calls = 0;
  r = SubmitRetryingWhileFull(
      [&]() -> absl::StatusOr<canopy::v1::SubmitJobResponse> {
        return ++calls < 2 ? absl::StatusOr<canopy::v1::SubmitJobResponse>(
                                 absl::ResourceExhaustedError("Server Threadpool Exhausted"))
                           : ok;
      },
      [&](absl::Duration) {}, err);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace canopy::ctl::sbatch
