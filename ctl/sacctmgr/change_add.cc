// sacctmgr add account|user (account_functions.c, user_functions.c).
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ctl/sacctmgr/change_internal.h"

namespace canopy::ctl::sacctmgr::internal {

using Request = canopy::v1::UpdateAssociationsRequest;

ChangePlan PlanAddAccount(const Command& c, const AssociationView& view) {
  if (c.names.empty()) {
    return Fail(" Need name of account to add.\n");
  }
  const std::string parent = c.parent.value_or("root");
  if (view.Account(parent) == nullptr) {
    return Fail(absl::StrCat(" Parent account '", parent, "' doesn't exist on cluster ",
                             view.cluster(),
                             "\n        Contact your admin to add this account.\n"));
  }
  const std::string* description = Setting(c, "Description");
  const std::string* organization = Setting(c, "Organization");
  ChangePlan plan;
  Request request;
  request.set_operation(Request::OPERATION_ADD);
  std::string accounts, associations;
  for (const std::string& name : c.names) {
    if (view.Account(name) != nullptr) {
      continue;  // already there: sacctmgr adds nothing for it
    }
    absl::StrAppend(&accounts, "  ", name, "\n");
    absl::StrAppend(&associations,
                    absl::StrFormat("  A = %-10.10s C = %-10.10s\n", name, view.cluster()));
    Association* a = request.add_associations();
    a->set_account(name);
    a->set_parent(parent == "root" ? "" : parent);
    a->set_shares(c.shares.value_or(1));
    // What Slurm stores when none is given: the name, and the parent (or the name under root).
    SetAttribute(*a, "Description", description != nullptr ? *description : name);
    SetAttribute(*a, "Organization",
                 organization != nullptr ? *organization : (parent == "root" ? name : parent));
    for (const auto& [key, value] : Limits(c)) {
      SetAttribute(*a, key, value);
    }
  }
  if (request.associations().empty()) {
    return Nothing(" Nothing new added.\n");
  }
  plan.out = absl::StrCat(
      " Adding Account(s)\n", accounts, " Settings\n",
      "  Description     = ", description != nullptr ? *description : "Account Name", "\n",
      "  Organization    = ", organization != nullptr ? *organization : "Parent/Account Name", "\n",
      " Associations\n", associations);
  if (c.any_setting) {
    absl::StrAppend(&plan.out, " Settings\n", LimitsBlock(c, &parent));
  }
  plan.requests.push_back(std::move(request));
  return plan;
}

ChangePlan PlanAddUser(const Command& c, const AssociationView& view) {
  if (c.names.empty()) {
    return Fail(" Need name of user to add.\n");
  }
  std::vector<std::string> accounts = c.accounts;
  const std::string* given_default = Setting(c, "DefaultAccount");
  if (accounts.empty()) {
    if (given_default == nullptr) {
      return Fail(" Need name of acct to add user to.\n");
    }
    accounts.push_back(*given_default);
  }
  for (const std::string& account : accounts) {
    if (view.Account(account) == nullptr) {
      return Fail(absl::StrCat(" This account '", account,
                               "' doesn't exist.\n        Contact your admin to add this "
                               "account.\n"));
    }
  }
  const std::string* admin = Setting(c, "AdminLevel");
  ChangePlan plan;
  Request request;
  request.set_operation(Request::OPERATION_ADD);
  std::string users, associations, default_account;
  for (const std::string& user : c.names) {
    const bool new_user = view.AssociationsOf(user).empty();
    // A new user's default is DefaultAccount= or the first account; a known user keeps theirs.
    const std::string def = given_default != nullptr ? *given_default
                            : new_user               ? accounts.front()
                                                     : view.DefaultAccount(user);
    bool added = false;
    for (const std::string& account : accounts) {
      if (view.UserAssociation(user, account) != nullptr) {
        continue;
      }
      added = true;
      absl::StrAppend(&associations, absl::StrFormat("  U = %-9.9s A = %-10.10s C = %-10.10s\n",
                                                     user, account, view.cluster()));
      Association* a = request.add_associations();
      a->set_account(account);
      a->set_user(user);
      a->set_shares(c.shares.value_or(1));
      SetAttribute(*a, "DefaultAccount", def);
      if (admin != nullptr) {
        SetAttribute(*a, "AdminLevel", *admin);
      }
      for (const auto& [key, value] : Limits(c)) {
        SetAttribute(*a, key, value);
      }
    }
    if (added && new_user) {
      absl::StrAppend(&users, "  ", user, "\n");
      default_account = def;
    }
  }
  if (request.associations().empty()) {
    return Nothing(" Nothing new added.\n");
  }
  if (!users.empty()) {
    absl::StrAppend(&plan.out, " Adding User(s)\n", users, " Settings =\n",
                    "  Default Account = ", default_account, "\n");
    if (admin != nullptr) {
      absl::StrAppend(&plan.out, "  Admin Level     = ", *admin, "\n");
    }
  }
  absl::StrAppend(&plan.out, " Associations =\n", associations);
  if (c.shares || !Limits(c).empty()) {
    absl::StrAppend(&plan.out, " Non Default Settings\n", LimitsBlock(c, nullptr));
  }
  plan.requests.push_back(std::move(request));
  return plan;
}

}  // namespace canopy::ctl::sacctmgr::internal
