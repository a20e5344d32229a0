// Controller's sacctmgr qos command (controller.h): the edit is worked out on the owner thread
// against the current table, so concurrent sacctmgr calls apply one after the other.
#include <string>
#include <utility>
#include <vector>

#include "scheduler/server/controller.h"
#include "scheduler/server/controller_command.h"

namespace canopy::server {

absl::StatusOr<std::vector<std::string>> Controller::UpdateQos(
    QosEdit edit, std::vector<std::string> names,
    std::vector<std::pair<std::string, std::string>> options, lifecycle::Caller caller) {
  return RunJobCommand<std::vector<std::string>>(
      [this, edit, names = std::move(names), options = std::move(options),
       caller = std::move(caller)](Batch& batch) -> absl::StatusOr<std::vector<std::string>> {
        // Checked before the edit, so that a caller who may not change QOS learns nothing.
        if (!caller.authenticated || !caller.is_operator) {
          return absl::PermissionDeniedError(
              "only an operator (root, canopyd's user, or a user listed in the config's "
              "operators) may change QOS");
        }
        absl::StatusOr<QosChange> change = EditQos(jobs_->qos(), edit, names, options);
        if (!change.ok()) {
          return change.status();
        }
        if (absl::Status s = jobs_->SetQos(std::move(change->specs), caller, batch.effects);
            !s.ok()) {
          return s;
        }
        batch.visible_change = true;
        return std::move(change->changed);
      });
}

}  // namespace canopy::server
