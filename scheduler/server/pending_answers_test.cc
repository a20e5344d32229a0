// OnceAnswer answers exactly once, whoever comes first: the commit, the deadline, or its end.
#include "scheduler/server/pending_answers.h"

#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::server {
namespace {

class Answers {
 public:
  std::shared_ptr<OnceAnswer<int>> New() {
    return std::make_shared<OnceAnswer<int>>(
        [this](absl::StatusOr<int> r) { heard.push_back(std::move(r)); }, absl::Seconds(8));
  }
  std::vector<absl::StatusOr<int>> heard;
};

const absl::Time kStart = absl::FromUnixSeconds(1'000'000);

TEST(OnceAnswerTest, TheFirstAnswerIsTheOnlyOne) {
  Answers answers;
  std::shared_ptr<OnceAnswer<int>> a = answers.New();
  EXPECT_FALSE(a->answered());
  a->Give(7);
  a->TimeOut();
  a->Give(8);
  a.reset();
  ASSERT_EQ(answers.heard.size(), 1u);
  EXPECT_EQ(*answers.heard[0], 7);
}

TEST(OnceAnswerTest, AnAnswerDroppedUnansweredSaysCanopydStopped) {
  Answers answers;
  answers.New().reset();
  ASSERT_EQ(answers.heard.size(), 1u);
  EXPECT_EQ(answers.heard[0].status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(answers.heard[0].status().message(), ::testing::HasSubstr("canopyd stopped"));
}

TEST(PendingAnswersTest, OnlyUnansweredAnswersPastTheirDeadlineTimeOut) {
  Answers answers;
  PendingAnswers pending;
  std::shared_ptr<OnceAnswer<int>> early = answers.New();
  std::shared_ptr<OnceAnswer<int>> saved = answers.New();
  std::shared_ptr<OnceAnswer<int>> late = answers.New();
  pending.Add(kStart + absl::Seconds(1), early);
  pending.Add(kStart + absl::Seconds(2), saved);
  pending.Add(kStart + absl::Seconds(3), late);
  EXPECT_EQ(pending.NextDeadline(), kStart + absl::Seconds(1));
  saved->Give(1);

  pending.Expire(kStart + absl::Seconds(2));
  ASSERT_EQ(answers.heard.size(), 2u);
  EXPECT_EQ(*answers.heard[0], 1);                                                   // saved
  EXPECT_EQ(answers.heard[1].status().code(), absl::StatusCode::kDeadlineExceeded);  // early
  EXPECT_THAT(answers.heard[1].status().message(), ::testing::HasSubstr("8s"));
  EXPECT_EQ(pending.NextDeadline(), kStart + absl::Seconds(3));
  EXPECT_EQ(pending.size(), 1u);

  // Answered, or gone, before the deadline: forgotten without waking anyone at it.
  late->Give(3);
  pending.Expire(kStart + absl::Seconds(2));
  EXPECT_EQ(pending.size(), 0u);
  EXPECT_EQ(pending.NextDeadline(), absl::InfiniteFuture());
  EXPECT_EQ(answers.heard.size(), 3u);
}

}  // namespace
}  // namespace canopy::server
