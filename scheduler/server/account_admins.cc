#include "scheduler/server/account_admins.h"

#include "absl/strings/match.h"

namespace canopy::server {

bool AccountAdmins::IsAdmin(absl::string_view user) const {
  std::shared_ptr<const ClusterSnapshot> snap = controller_->Snapshot();
  if (snap == nullptr || snap->accounting == nullptr) {
    return false;
  }
  absl::MutexLock lock(&mu_);
  if (read_from_ != snap->accounting) {
    read_from_ = snap->accounting;
    admins_.clear();
    const fairshare::AssociationTree& tree = read_from_->tree();
    for (int32_t i : tree.UserAssociations()) {
      const fairshare::AssociationSpec& spec = tree.node(i).spec;
      const std::string* level = spec.Attribute("AdminLevel");
      if (level != nullptr &&
          (absl::EqualsIgnoreCase(*level, "Operator") || absl::EqualsIgnoreCase(*level, "Admin") ||
           absl::EqualsIgnoreCase(*level, "Administrator"))) {
        admins_.insert(spec.user);
      }
    }
  }
  return admins_.contains(user);
}

}  // namespace canopy::server
