// The association tree (association_tree.h).
#include "scheduler/fairshare/association_tree.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace canopy::fairshare {
namespace {

constexpr absl::string_view kRoot = "root";

std::string UserKey(absl::string_view user, absl::string_view account) {
  return absl::StrCat(user, "\n", account);
}

// "Fairshare=N|parent" of a flat-file record; the other options stay attributes.
absl::Status TakeShares(const slurm::FlatFileRecord& r, AssociationSpec& spec) {
  for (const auto& [key, value] : r.options) {
    if (!absl::EqualsIgnoreCase(key, "fairshare")) {
      spec.attributes.emplace_back(key, value);
      continue;
    }
    if (absl::EqualsIgnoreCase(value, "parent")) {
      spec.shares = kParentShares;
    } else if (!absl::SimpleAtoi(value, &spec.shares) || spec.shares < 0) {
      return absl::InvalidArgumentError(absl::StrCat("line ", r.line, ": Fairshare='", value,
                                                     "': expected a number >= 0 or 'parent'"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

const std::string* AssociationSpec::Attribute(absl::string_view key) const {
  for (const auto& [k, v] : attributes) {
    if (absl::EqualsIgnoreCase(k, key)) {
      return &v;
    }
  }
  return nullptr;
}

AssociationTree::AssociationTree() {
  Node root;
  root.spec.account = std::string(kRoot);
  nodes_.push_back(std::move(root));
  accounts_[kRoot] = 0;
}

absl::StatusOr<AssociationTree> AssociationTree::Build(std::vector<AssociationSpec> specs) {
  AssociationTree tree;
  for (AssociationSpec& spec : specs) {
    const std::string what = spec.is_user()
                                 ? absl::StrCat("user ", spec.user, " in account ", spec.account)
                                 : absl::StrCat("account ", spec.account);
    auto bad = [&](absl::string_view why) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": ", why));
    };
    if (spec.account.empty()) {
      return bad("no account name");
    }
    if (spec.shares < 0 && spec.shares != kParentShares) {
      return bad(absl::StrCat("Fairshare=", spec.shares, " is negative"));
    }
    int32_t parent = -1;
    if (spec.is_user()) {
      parent = tree.FindAccount(spec.account);
      if (parent < 0) {
        return bad("no such account (add the account first)");
      }
      if (tree.FindUser(spec.user, spec.account) >= 0) {
        return bad("given twice");
      }
    } else {
      if (spec.account == kRoot) {
        return bad("the root account always exists and cannot be added");
      }
      if (tree.FindAccount(spec.account) >= 0) {
        return bad("given twice");
      }
      if (spec.parent.empty()) {
        spec.parent = std::string(kRoot);
      }
      parent = tree.FindAccount(spec.parent);
      if (parent < 0) {
        return bad(absl::StrCat("parent account ", spec.parent,
                                " does not exist (parents come before their children)"));
      }
    }
    const int32_t id = static_cast<int32_t>(tree.nodes_.size());
    if (spec.is_user()) {
      tree.users_[UserKey(spec.user, spec.account)] = id;
    } else {
      tree.accounts_[spec.account] = id;
    }
    Node node;
    node.spec = std::move(spec);
    node.parent = parent;
    tree.nodes_.push_back(std::move(node));
    tree.nodes_[parent].children.push_back(id);
  }
  return tree;
}

absl::StatusOr<AssociationTree> AssociationTree::FromFlatFile(
    const std::vector<slurm::FlatFileRecord>& records, std::string* cluster) {
  using Kind = slurm::FlatFileRecord::Kind;
  std::vector<AssociationSpec> specs;
  std::string parent(kRoot);
  for (const slurm::FlatFileRecord& r : records) {
    AssociationSpec spec;
    switch (r.kind) {
      case Kind::kCluster:
        if (cluster != nullptr) {
          *cluster = r.name;
        }
        continue;
      case Kind::kParent:
        parent = r.name;
        continue;
      case Kind::kQos:
        continue;  // QOS records are read by the QOS table, not the tree
      case Kind::kAccount:
        spec.account = r.name;
        spec.parent = parent;
        break;
      case Kind::kUser:
        spec.user = r.name;
        spec.account = parent;
        break;
    }
    if (absl::Status s = TakeShares(r, spec); !s.ok()) {
      return s;
    }
    if (spec.account == kRoot && spec.is_user() == false) {
      return absl::InvalidArgumentError(
          absl::StrCat("line ", r.line, ": the root account always exists and cannot be added"));
    }
    specs.push_back(std::move(spec));
  }
  absl::StatusOr<AssociationTree> tree = Build(std::move(specs));
  if (!tree.ok()) {
    return tree.status();
  }
  return tree;
}

std::vector<slurm::FlatFileRecord> AssociationTree::ToFlatFile(const std::string& cluster) const {
  using Kind = slurm::FlatFileRecord::Kind;
  std::vector<slurm::FlatFileRecord> out;
  out.push_back({Kind::kCluster, cluster, {{"Fairshare", "1"}}, 0});
  // As sacctmgr dump: for each account that has children (root first, then depth first), a
  // Parent line, its users, then its sub-accounts.
  std::vector<int32_t> parents = {root()};
  for (size_t k = 0; k < parents.size(); ++k) {
    const Node& p = nodes_[parents[k]];
    if (p.children.empty()) {
      continue;
    }
    out.push_back({Kind::kParent, p.spec.account, {}, 0});
    for (bool users : {true, false}) {
      for (int32_t c : p.children) {
        const Node& child = nodes_[c];
        if (child.is_user() != users) {
          continue;
        }
        slurm::FlatFileRecord r;
        r.kind = users ? Kind::kUser : Kind::kAccount;
        r.name = users ? child.spec.user : child.spec.account;
        r.options = child.spec.attributes;
        r.options.emplace_back("Fairshare", child.spec.shares == kParentShares
                                                ? "parent"
                                                : absl::StrCat(child.spec.shares));
        out.push_back(std::move(r));
        if (!users) {
          parents.push_back(c);
        }
      }
    }
  }
  return out;
}

int32_t AssociationTree::FindAccount(absl::string_view account) const {
  auto it = accounts_.find(account);
  return it == accounts_.end() ? -1 : it->second;
}

int32_t AssociationTree::FindUser(absl::string_view user, absl::string_view account) const {
  auto it = users_.find(UserKey(user, account));
  return it == users_.end() ? -1 : it->second;
}

std::string AssociationTree::DefaultAccount(absl::string_view user) const {
  std::string first;
  for (const Node& n : nodes_) {
    if (n.spec.user != user) {
      continue;
    }
    if (const std::string* def = n.spec.Attribute("DefaultAccount");
        def != nullptr && FindUser(user, *def) >= 0) {
      return *def;
    }
    if (first.empty()) {
      first = n.spec.account;
    }
  }
  return first;
}

std::vector<int32_t> AssociationTree::UserAssociations() const {
  std::vector<int32_t> out;
  std::vector<int32_t> stack = {root()};
  while (!stack.empty()) {
    const int32_t i = stack.back();
    stack.pop_back();
    if (nodes_[i].is_user()) {
      out.push_back(i);
    }
    const std::vector<int32_t>& c = nodes_[i].children;
    stack.insert(stack.end(), c.rbegin(), c.rend());
  }
  return out;
}

std::vector<AssociationSpec> AssociationTree::Specs() const {
  std::vector<AssociationSpec> out;
  for (size_t i = 1; i < nodes_.size(); ++i) {
    out.push_back(nodes_[i].spec);
  }
  return out;
}

}  // namespace canopy::fairshare
