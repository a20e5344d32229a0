// Controller::PostJobCommand and RunJobCommand, shared by the files that define the Controller's
// commands: run a function on the owner thread and answer once the batch it was in is committed.
// Internal to canopy_server.
#pragma once

#include <future>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/server/controller.h"
#include "scheduler/server/pending_answers.h"

namespace canopy::server {

template <typename T>
void Controller::PostJobCommand(std::function<absl::StatusOr<T>(Batch&)> fn,
                                AnswerCallback<T> done) {
  auto answer = std::make_shared<OnceAnswer<T>>(std::move(done), answer_timeout_);
  // Timed from the call, as a blocked caller times its wait.
  const absl::Time deadline = absl::Now() + answer_timeout_;
  const bool posted = Post([this, fn = std::move(fn), answer, deadline](Batch& batch) {
    absl::StatusOr<T> out = fn(batch);
    if (!out.ok()) {
      answer->Give(out.status());
      return;
    }
    pending_answers_.Add(deadline, answer);
    batch.after_commit.push_back(
        [answer, out = std::move(out)](const absl::Status& committed) mutable {
          if (committed.ok()) {
            answer->Give(std::move(out));
          } else {
            answer->Give(absl::UnavailableError(absl::StrCat("canopyd could not save the change (",
                                                             committed.message(), "); try again")));
          }
        });
  });
  if (!posted) {
    answer->Give(absl::UnavailableError("canopyd is shutting down; try again when it is back"));
  }
}

template <typename T>
absl::StatusOr<T> Controller::RunJobCommand(std::function<absl::StatusOr<T>(Batch&)> fn) {
  auto result = std::make_shared<std::promise<absl::StatusOr<T>>>();
  std::future<absl::StatusOr<T>> future = result->get_future();
  PostJobCommand<T>(std::move(fn),
                    [result](absl::StatusOr<T> out) { result->set_value(std::move(out)); });
  return AwaitAnswer(future);
}

template <typename T>
absl::StatusOr<T> Controller::AwaitAnswer(std::future<absl::StatusOr<T>>& answer) const {
  // The owner thread times the answer out too (PendingAnswers); this wait covers an owner thread
  // that is stuck.
  if (answer.wait_for(absl::ToChronoNanoseconds(answer_timeout_)) != std::future_status::ready) {
    return AnswerTimeoutError(answer_timeout_);
  }
  return answer.get();
}

}  // namespace canopy::server
