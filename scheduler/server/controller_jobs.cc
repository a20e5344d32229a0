// Controller's job commands (controller.h): each runs on the owner thread and is answered
// once the batch it was in is committed; agents' job and step reports.
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
  return future.get();
}

absl::StatusOr<lifecycle::SubmitAnswer> Controller::SubmitJob(lifecycle::SubmitRequest request,
                                                              lifecycle::Caller caller) {
  return RunJobCommand<lifecycle::SubmitAnswer>(
      [this, request = std::move(request), caller = std::move(caller)](Batch& batch) {
        return jobs_->Submit(request, caller, batch.effects);
      });
}

absl::StatusOr<std::vector<lifecycle::CancelAnswer>> Controller::CancelJob(
    lifecycle::CancelRequest request, lifecycle::Caller caller) {
  return RunJobCommand<std::vector<lifecycle::CancelAnswer>>(
      [this, request = std::move(request), caller = std::move(caller)](
          Batch& batch) -> absl::StatusOr<std::vector<lifecycle::CancelAnswer>> {
        return jobs_->Cancel(request, caller, batch.effects);
      });
}

absl::StatusOr<lifecycle::StepAnswer> Controller::CreateStep(lifecycle::StepRequest request,
                                                             lifecycle::Caller caller) {
  return RunJobCommand<lifecycle::StepAnswer>(
      [this, request = std::move(request), caller = std::move(caller)](Batch& batch) {
        return jobs_->CreateStep(request, caller, batch.effects);
      });
}

absl::Status Controller::CancelStep(lifecycle::CancelStepRequest request,
                                    lifecycle::Caller caller) {
  return RunJobCommand<bool>([this, request = std::move(request),
                              caller = std::move(caller)](Batch& batch) -> absl::StatusOr<bool> {
           absl::Status s = jobs_->CancelStep(request, caller, batch.effects);
           if (!s.ok()) {
             return s;
           }
           return true;
         })
      .status();
}

absl::Status Controller::CompleteJob(lifecycle::CompleteRequest request, lifecycle::Caller caller) {
  return RunJobCommand<bool>([this, request = std::move(request),
                              caller = std::move(caller)](Batch& batch) -> absl::StatusOr<bool> {
           absl::Status s = jobs_->CompleteJob(request, caller, batch.effects);
           if (!s.ok()) {
             return s;
           }
           return true;
         })
      .status();
}

void Controller::AgentJobStatus(lifecycle::JobReport report, std::shared_ptr<AgentOutbox> outbox) {
  Post([this, report = std::move(report), outbox = std::move(outbox)](Batch& batch) {
    const core::NodeId node = SessionNode(outbox);
    if (!node.valid()) {
      return;
    }
    state_.NoteHeard(node, clock_->Now());
    // Acknowledgements go out after the commit, like every message: the agent forgets the
    // report only once it is safe.
    jobs_->JobReported(node, report, batch.effects);
  });
}

void Controller::AgentStepStatus(lifecycle::StepReport report,
                                 std::shared_ptr<AgentOutbox> outbox) {
  Post([this, report = std::move(report), outbox = std::move(outbox)](Batch&) {
    const core::NodeId node = SessionNode(outbox);
    if (node.valid()) {
      state_.NoteHeard(node, clock_->Now());
      jobs_->StepReported(node, report);
    }
  });
}

}  // namespace canopy::server
