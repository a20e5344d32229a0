#include "scheduler/server/pending_answers.h"

#include "absl/strings/str_cat.h"

namespace canopy::server {

absl::Status AnswerTimeoutError(absl::Duration timeout) {
  return absl::DeadlineExceededError(absl::StrCat(
      "canopyd has not been able to save the change for ", absl::FormatDuration(timeout),
      " (its database is failing or it is overloaded: see its log); canopyd keeps the request, "
      "which takes effect once saved unless it is refused then, so check (squeue, sinfo) "
      "before trying again"));
}

void PendingAnswers::Add(absl::Time deadline, std::weak_ptr<ExpiringAnswer> answer) {
  waiting_.emplace_back(deadline, std::move(answer));
}

void PendingAnswers::Expire(absl::Time now) {
  while (!waiting_.empty()) {
    std::shared_ptr<ExpiringAnswer> live = waiting_.front().second.lock();
    if (live != nullptr && !live->answered() && waiting_.front().first > now) {
      return;
    }
    waiting_.pop_front();
    if (live != nullptr) {
      live->TimeOut();  // does nothing when answered
    }
  }
}

absl::Time PendingAnswers::NextDeadline() const {
  return waiting_.empty() ? absl::InfiniteFuture() : waiting_.front().first;
}

}  // namespace canopy::server
