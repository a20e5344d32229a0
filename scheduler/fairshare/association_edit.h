// Changing an association tree the way sacctmgr does: add associations, modify their shares and
// options, delete them (an account goes with everything under it), or replace the whole tree
// (sacctmgr load). The tree is immutable, so an edit builds a new one and every check of
// AssociationTree::Build applies. Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/fairshare/association_tree.h"

namespace canopy::fairshare {

enum class AssociationEdit { kAdd, kModify, kDelete, kReplace };

// Applies `edit` with `specs` to `tree`. For kModify, each spec names an existing association by
// (account, user); its attributes are set (replacing an attribute of the same key) and its
// shares too when `set_shares`. For kDelete only (account, user) matter. `changed` gets one line
// per association added, modified or deleted ("add account vision under root", "delete user
// alice in vision"). Errors: AlreadyExists (adding one that exists), NotFound (modifying or
// deleting one that does not), InvalidArgument from Build; the tree is then unchanged.
absl::StatusOr<AssociationTree> EditAssociations(const AssociationTree& tree, AssociationEdit edit,
                                                 const std::vector<AssociationSpec>& specs,
                                                 bool set_shares,
                                                 std::vector<std::string>& changed);

}  // namespace canopy::fairshare
