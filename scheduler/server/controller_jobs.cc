// Controller's job commands (controller.h): each runs on the owner thread and is answered
// once the batch it was in is committed; agents' job and step reports.
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/server/controller.h"
#include "scheduler/server/controller_command.h"

namespace canopy::server {

void Controller::SubmitJob(lifecycle::SubmitRequest request, lifecycle::Caller caller,
                           AnswerCallback<lifecycle::SubmitAnswer> done) {
  PostJobCommand<lifecycle::SubmitAnswer>(
      [this, request = std::move(request), caller = std::move(caller)](Batch& batch) mutable {
        return jobs_->Submit(std::move(request), caller, batch.effects);  // run once
      },
      std::move(done));
}

void Controller::SubmitJobs(
    std::vector<std::pair<lifecycle::SubmitRequest, lifecycle::Caller>> requests,
    AnswerCallback<std::vector<absl::StatusOr<lifecycle::SubmitAnswer>>> done) {
  using Answers = std::vector<absl::StatusOr<lifecycle::SubmitAnswer>>;
  PostJobCommand<Answers>(
      [this, requests = std::move(requests)](Batch& batch) mutable -> absl::StatusOr<Answers> {
        Answers answers;
        answers.reserve(requests.size());
        for (auto& [request, caller] : requests) {  // run once: the requests are given away
          answers.push_back(jobs_->Submit(std::move(request), caller, batch.effects));
        }
        return answers;
      },
      std::move(done));
}

void Controller::TestSubmit(lifecycle::SubmitRequest request, lifecycle::Caller caller,
                            AnswerCallback<lifecycle::WillRunAnswer> done) {
  PostJobCommand<lifecycle::WillRunAnswer>(
      [this, request = std::move(request), caller = std::move(caller)](Batch&) {
        return jobs_->TestSubmit(request, caller);
      },
      std::move(done));
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

absl::Status Controller::NotifyJob(lifecycle::NotifyRequest request, lifecycle::Caller caller) {
  return RunJobCommand<bool>([this, request = std::move(request),
                              caller = std::move(caller)](Batch& batch) -> absl::StatusOr<bool> {
           absl::Status s = jobs_->NotifyJob(request, caller, batch.effects);
           if (!s.ok()) {
             return s;
           }
           return true;
         })
      .status();
}

absl::StatusOr<lifecycle::StepAnswer> Controller::AttachStep(lifecycle::AttachRequest request,
                                                             lifecycle::Caller caller) {
  return RunJobCommand<lifecycle::StepAnswer>(
      [this, request = std::move(request), caller = std::move(caller)](Batch& batch) {
        return jobs_->AttachStep(request, caller, batch.effects);
      });
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

absl::Status Controller::UpdateJob(core::JobId id, std::optional<uint32_t> priority,
                                   std::optional<int32_t> nice,
                                   std::optional<lifecycle::TimeLimitChange> time_limit, bool top,
                                   lifecycle::JobEdit edit, lifecycle::Caller caller) {
  return RunJobCommand<bool>([this, id, priority, nice, time_limit, top, edit = std::move(edit),
                              caller = std::move(caller)](Batch& batch) -> absl::StatusOr<bool> {
           if (!edit.empty()) {
             if (absl::Status s = jobs_->EditJob(id, edit, caller, batch.effects); !s.ok()) {
               return s;
             }
           }
           if (time_limit.has_value()) {
             if (absl::Status s = jobs_->SetJobTimeLimit(id, *time_limit, caller, batch.effects);
                 !s.ok()) {
               return s;
             }
           }
           if (nice.has_value()) {
             if (absl::Status s = jobs_->SetJobNice(id, *nice, caller, batch.effects); !s.ok()) {
               return s;
             }
           }
           if (priority.has_value()) {
             if (absl::Status s = jobs_->SetJobPriority(id, *priority, caller, batch.effects);
                 !s.ok()) {
               return s;
             }
           }
           if (top) {
             if (absl::Status s = jobs_->TopJob(id, caller, batch.effects); !s.ok()) {
               return s;
             }
           }
           return true;
         })
      .status();
}

absl::StatusOr<std::vector<lifecycle::JobActionAnswer>> Controller::ControlJobs(
    lifecycle::JobActionRequest request, lifecycle::Caller caller) {
  return RunJobCommand<std::vector<lifecycle::JobActionAnswer>>(
      [this, request = std::move(request), caller = std::move(caller)](
          Batch& batch) -> absl::StatusOr<std::vector<lifecycle::JobActionAnswer>> {
        return jobs_->ControlJobs(request, caller, batch.effects);
      });
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
    ApplyDrains(batch);
  });
}

void Controller::AgentStepStatus(lifecycle::StepReport report,
                                 std::shared_ptr<AgentOutbox> outbox) {
  Post([this, report = std::move(report), outbox = std::move(outbox)](Batch& batch) {
    const core::NodeId node = SessionNode(outbox);
    if (node.valid()) {
      state_.NoteHeard(node, clock_->Now());
      jobs_->StepReported(node, report, batch.effects);
    }
  });
}

}  // namespace canopy::server
