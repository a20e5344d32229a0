#include "ctl/sacctmgr/view.h"

#include <algorithm>

#include "absl/strings/match.h"

namespace canopy::ctl::sacctmgr {

AssociationView::AssociationView(const canopy::v1::ListAssociationsResponse& answer)
    : cluster_(answer.cluster_name()) {
  // ListAssociations leaves root's own association out; Slurm creates it with the cluster
  // (Fairshare=1, QOS normal, "default root account").
  Association root;
  root.set_account("root");
  root.set_shares(1);
  all_.push_back(root);
  for (const Association& a : answer.associations()) {
    if (!(a.user().empty() && a.account() == "root")) {
      all_.push_back(a);
    }
  }
}

const Association* AssociationView::Account(absl::string_view account) const {
  for (const Association& a : all_) {
    if (a.user().empty() && a.account() == account) {
      return &a;
    }
  }
  return nullptr;
}

const Association* AssociationView::UserAssociation(absl::string_view user,
                                                    absl::string_view account) const {
  for (const Association& a : all_) {
    if (!a.user().empty() && a.user() == user && a.account() == account) {
      return &a;
    }
  }
  return nullptr;
}

std::string AssociationView::ParentOf(const Association& account) const {
  if (IsRoot(account)) {
    return "";
  }
  return account.parent().empty() ? "root" : account.parent();
}

std::vector<const Association*> AssociationView::Children(absl::string_view account) const {
  std::vector<const Association*> users, accounts;
  for (const Association& a : all_) {
    if (!a.user().empty()) {
      if (a.account() == account) {
        users.push_back(&a);
      }
    } else if (!IsRoot(a) && ParentOf(a) == account) {
      accounts.push_back(&a);
    }
  }
  std::stable_sort(users.begin(), users.end(),
                   [](const auto* x, const auto* y) { return x->user() < y->user(); });
  std::stable_sort(accounts.begin(), accounts.end(),
                   [](const auto* x, const auto* y) { return x->account() < y->account(); });
  users.insert(users.end(), accounts.begin(), accounts.end());
  return users;
}

void AssociationView::AddSubtree(absl::string_view account, bool users_first,
                                 std::vector<const Association*>& out) const {
  const std::vector<const Association*> children = Children(account);
  if (users_first) {
    for (const Association* c : children) {
      out.push_back(c);
      if (c->user().empty()) {
        AddSubtree(c->account(), users_first, out);
      }
    }
    return;
  }
  for (const Association* c : children) {
    if (c->user().empty()) {
      out.push_back(c);
      AddSubtree(c->account(), users_first, out);
    }
  }
  for (const Association* c : children) {
    if (!c->user().empty()) {
      out.push_back(c);
    }
  }
}

std::vector<const Association*> AssociationView::Hierarchical() const {
  std::vector<const Association*> out = {&all_.front()};
  AddSubtree("root", true, out);
  return out;
}

std::vector<const Association*> AssociationView::SubAccountsFirst() const {
  std::vector<const Association*> out = {&all_.front()};
  AddSubtree("root", false, out);
  return out;
}

std::vector<const Association*> AssociationView::Subtree(absl::string_view account) const {
  std::vector<const Association*> out;
  if (const Association* a = Account(account); a != nullptr) {
    out.push_back(a);
    AddSubtree(account, true, out);
  }
  return out;
}

std::vector<std::string> AssociationView::AccountNames() const {
  std::vector<std::string> names;
  for (const Association& a : all_) {
    if (a.user().empty()) {
      names.push_back(a.account());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> AssociationView::UserNames() const {
  std::vector<std::string> names;
  for (const Association& a : all_) {
    if (!a.user().empty() && std::find(names.begin(), names.end(), a.user()) == names.end()) {
      names.push_back(a.user());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<const Association*> AssociationView::AssociationsOf(absl::string_view user) const {
  std::vector<const Association*> out;
  for (const Association* a : SubAccountsFirst()) {
    if (a->user() == user && !user.empty()) {
      out.push_back(a);
    }
  }
  return out;
}

std::string AssociationView::Attribute(const Association& a, absl::string_view key) {
  std::string value;
  for (const canopy::v1::Attribute& attr : a.attributes()) {
    if (absl::EqualsIgnoreCase(attr.key(), key)) {
      value = attr.value();
    }
  }
  return value;
}

std::string AssociationView::Description(const Association& account) const {
  if (std::string d = Attribute(account, "Description"); !d.empty()) {
    return d;
  }
  return IsRoot(account) ? "default root account" : account.account();
}

std::string AssociationView::Organization(const Association& account) const {
  if (std::string o = Attribute(account, "Organization"); !o.empty()) {
    return o;
  }
  if (IsRoot(account)) {
    return "root";
  }
  const std::string parent = ParentOf(account);
  return parent == "root" ? account.account() : parent;
}

std::string AssociationView::UserAttribute(absl::string_view user, absl::string_view key) const {
  for (const Association* a : AssociationsOf(user)) {
    if (std::string v = Attribute(*a, key); !v.empty()) {
      return v;
    }
  }
  return "";
}

std::string AssociationView::DefaultAccount(absl::string_view user) const {
  if (std::string d = UserAttribute(user, "DefaultAccount"); !d.empty()) {
    return d;
  }
  // Tree order, as canopyd picks a user's default (root's own users come first).
  for (const Association* a : Hierarchical()) {
    if (a->user() == user) {
      return a->account();
    }
  }
  return "";
}

std::string AssociationView::Qos(const Association& a) const {
  if (std::string q = Attribute(a, "QOS"); !q.empty()) {
    return q;
  }
  const Association* up = a.user().empty() ? Account(ParentOf(a)) : Account(a.account());
  if (up == nullptr || &a == up) {
    return "normal";
  }
  return Qos(*up);
}

}  // namespace canopy::ctl::sacctmgr
