// AssociationView: the association tree of a ListAssociations answer, with root's own
// association added (the answer leaves it out) and the orders sacctmgr prints in. Read-only
// after construction; thread-compatible.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "canopy/v1/accounts.pb.h"

namespace canopy::ctl::sacctmgr {

using Association = canopy::v1::Association;

class AssociationView {
 public:
  explicit AssociationView(const canopy::v1::ListAssociationsResponse& answer);

  const std::string& cluster() const { return cluster_; }

  // The account's own association (root included), or nullptr.
  const Association* Account(absl::string_view account) const;
  // The user's association under `account`, or nullptr.
  const Association* UserAssociation(absl::string_view user, absl::string_view account) const;
  // The parent account of an account ("" for root).
  std::string ParentOf(const Association& account) const;
  bool IsRoot(const Association& a) const { return a.user().empty() && a.account() == "root"; }

  // Associations directly under `account`, as sacctmgr sorts them: users by name, then
  // sub-accounts by name (slurmdb_sort_hierarchical_assoc_list).
  std::vector<const Association*> Children(absl::string_view account) const;
  // The whole tree in sacctmgr's hierarchical order: root, then each level as Children, every
  // sub-account followed by its own subtree (what `sacctmgr show assoc` prints).
  std::vector<const Association*> Hierarchical() const;
  // The tree with every sub-account's subtree before the users of its parent: the order
  // `sacctmgr list user -s` gives a user's associations (see docs/compat/accounting-commands.md).
  std::vector<const Association*> SubAccountsFirst() const;
  // `account` and everything under it.
  std::vector<const Association*> Subtree(absl::string_view account) const;

  // Account names and user names, sorted.
  std::vector<std::string> AccountNames() const;
  std::vector<std::string> UserNames() const;
  // Every association of `user`, in SubAccountsFirst order.
  std::vector<const Association*> AssociationsOf(absl::string_view user) const;

  // The attribute `key` of `a` (case-insensitive; the last one given wins), or "".
  static std::string Attribute(const Association& a, absl::string_view key);
  // Description and Organization as Slurm stores them when none was given: the name, and the
  // parent (or the name under root); root's are "default root account" and "root".
  std::string Description(const Association& account) const;
  std::string Organization(const Association& account) const;
  // A user-level attribute (DefaultAccount, AdminLevel): from the first association of the
  // user that has it.
  std::string UserAttribute(absl::string_view user, absl::string_view key) const;
  // DefaultAccount, else the account of the user's first association.
  std::string DefaultAccount(absl::string_view user) const;
  // The QOS list an association gets: its own QOS attribute, else its parent's, else "normal"
  // (Slurm's default QOS, which root carries).
  std::string Qos(const Association& a) const;

 private:
  void AddSubtree(absl::string_view account, bool users_first,
                  std::vector<const Association*>& out) const;

  std::string cluster_;
  std::vector<Association> all_;  // root first, then the answer's order
};

}  // namespace canopy::ctl::sacctmgr
