// AssociationTree: who may run jobs under which account, and with how many shares. Slurm's
// associations: root -> accounts -> sub-accounts, and users under accounts (a user may belong to
// several accounts, with one default account).
//
// The tree is an immutable value built from a list of AssociationSpec (what an admin configured:
// YAML `accounts:`, a sacctmgr flat file, or sacctmgr commands); a change builds a new tree.
// Node 0 is always the root account. Children keep configuration order. Thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/slurm/sacctmgr_file.h"

namespace canopy::fairshare {

// Fairshare=parent: the association takes its parent's place in the tree's arithmetic.
inline constexpr int64_t kParentShares = -1;

// One association as configured.
struct AssociationSpec {
  std::string account;  // the account (for a user association: the account it is under)
  std::string user;     // "" = the account's own association
  std::string parent;   // accounts only: the parent account ("" = root)
  int64_t shares = 1;   // Fairshare (raw shares), or kParentShares
  // Every other option as written (Description, Organization, DefaultAccount, AdminLevel,
  // limits such as MaxJobs), kept so a dump gives back what was loaded.
  std::vector<std::pair<std::string, std::string>> attributes;

  bool is_user() const { return !user.empty(); }
  // The attribute `key` (case-insensitive), or nullptr.
  const std::string* Attribute(absl::string_view key) const;
  friend bool operator==(const AssociationSpec&, const AssociationSpec&) = default;
};

class AssociationTree {
 public:
  struct Node {
    AssociationSpec spec;
    int32_t parent = -1;            // -1 for the root
    std::vector<int32_t> children;  // configuration order
    bool is_user() const { return spec.is_user(); }
  };

  // Only the root account ("root", 1 share).
  AssociationTree();

  // InvalidArgument naming the association for: an account or user association given twice,
  // a parent or account that does not exist (parents must come first), an account called
  // "root" (it always exists), an empty name, shares below 0 (other than kParentShares).
  static absl::StatusOr<AssociationTree> Build(std::vector<AssociationSpec> specs);

  // From sacctmgr's flat file: Parent lines set the account later Account and User lines go
  // under; `Fairshare=` gives the shares ("parent" = kParentShares); other options are kept as
  // attributes. The Cluster line's name goes to `cluster` (may be null). InvalidArgument
  // "<origin>:<line>: ..." for a bad record.
  static absl::StatusOr<AssociationTree> FromFlatFile(
      const std::vector<slurm::FlatFileRecord>& records, std::string* cluster);
  // The flat file sacctmgr dump writes for this tree.
  std::vector<slurm::FlatFileRecord> ToFlatFile(const std::string& cluster) const;

  int32_t root() const { return 0; }
  size_t size() const { return nodes_.size(); }
  const Node& node(int32_t i) const { return nodes_[i]; }
  // -1 when absent.
  int32_t FindAccount(absl::string_view account) const;
  int32_t FindUser(absl::string_view user, absl::string_view account) const;
  // The account a user's job goes to when it names none: the DefaultAccount attribute, else the
  // account of the user's first association; "" for a user with no association.
  std::string DefaultAccount(absl::string_view user) const;
  // Every user association, in tree (pre-)order.
  std::vector<int32_t> UserAssociations() const;
  // The specs the tree was built from, root excluded, in a valid build order.
  std::vector<AssociationSpec> Specs() const;

 private:
  std::vector<Node> nodes_;
  absl::flat_hash_map<std::string, int32_t> accounts_;  // lookups only
  absl::flat_hash_map<std::string, int32_t> users_;     // "user\naccount" -> node; lookups only
};

}  // namespace canopy::fairshare
