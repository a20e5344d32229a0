// Controller::RunJobCommand, shared by the files that define the Controller's commands: runs a
// function on the owner thread and answers once the batch it was in is committed.
// Internal to canopy_server.
#pragma once

#include <future>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/server/controller.h"

namespace canopy::server {

template <typename T>
absl::StatusOr<T> Controller::RunJobCommand(std::function<absl::StatusOr<T>(Batch&)> fn) {
  auto result = std::make_shared<std::promise<absl::StatusOr<T>>>();
  std::future<absl::StatusOr<T>> future = result->get_future();
  const bool posted = Post([fn = std::move(fn), result](Batch& batch) {
    absl::StatusOr<T> out = fn(batch);
    if (!out.ok()) {
      result->set_value(out.status());
      return;
    }
    batch.after_commit.push_back(
        [result, out = std::move(out)](const absl::Status& committed) mutable {
          if (committed.ok()) {
            result->set_value(std::move(out));
          } else {
            result->set_value(absl::UnavailableError(absl::StrCat(
                "canopyd could not save the change (", committed.message(), "); try again")));
          }
        });
  });
  if (!posted) {
    return absl::UnavailableError("canopyd is shutting down; try again when it is back");
  }
  return AwaitAnswer(future);
}

template <typename T>
absl::StatusOr<T> Controller::AwaitAnswer(std::future<absl::StatusOr<T>>& answer) const {
  if (answer.wait_for(absl::ToChronoNanoseconds(answer_timeout_)) != std::future_status::ready) {
    return absl::DeadlineExceededError(absl::StrCat(
        "canopyd has not been able to save the change for ", absl::FormatDuration(answer_timeout_),
        " (its database is failing or it is overloaded: see its log); canopyd keeps the request, "
        "which takes effect once saved unless it is refused then, so check (squeue, sinfo) "
        "before trying again"));
  }
  return answer.get();
}

}  // namespace canopy::server
