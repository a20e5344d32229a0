// Controller's sacctmgr command (controller.h): the edit is worked out on the owner thread
// against the current tree, so concurrent sacctmgr calls apply one after the other.
#include <string>
#include <utility>
#include <vector>

#include "scheduler/server/controller.h"
#include "scheduler/server/controller_command.h"

namespace canopy::server {

absl::StatusOr<std::vector<std::string>> Controller::UpdateAssociations(
    fairshare::AssociationEdit edit, std::vector<fairshare::AssociationSpec> specs, bool set_shares,
    lifecycle::Caller caller) {
  return RunJobCommand<std::vector<std::string>>(
      [this, edit, specs = std::move(specs), set_shares,
       caller = std::move(caller)](Batch& batch) -> absl::StatusOr<std::vector<std::string>> {
        if (!caller.authenticated || !caller.is_operator) {
          return absl::PermissionDeniedError(
              "only an operator (root, canopyd's user, or a user listed in the config's "
              "operators) may change accounts and associations");
        }
        std::vector<std::string> changed;
        absl::StatusOr<fairshare::AssociationTree> tree = fairshare::EditAssociations(
            jobs_->accounting().tree(), edit, specs, set_shares, changed);
        if (!tree.ok()) {
          return tree.status();
        }
        if (absl::Status s = jobs_->SetAssociations(*std::move(tree), caller, batch.effects);
            !s.ok()) {
          return s;
        }
        batch.visible_change = true;
        return changed;
      });
}

}  // namespace canopy::server
