// Pieces the change plans share (change.cc) and the plans themselves (change_add.cc,
// change_modify.cc, change_delete.cc). Internal to ctl/sacctmgr.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ctl/sacctmgr/change.h"

namespace canopy::ctl::sacctmgr::internal {

ChangePlan Fail(std::string err);     // nothing sent, exit 1, `err` on stderr
ChangePlan Nothing(std::string out);  // nothing sent, exit 1, `out` on stdout
bool Listed(const std::vector<std::string>& list, const std::string& value);
void SetAttribute(Association& a, const std::string& key, const std::string& value);
std::vector<std::pair<std::string, std::string>> Limits(const Command& c);
// The settings block sacctmgr echoes; `parent` adds its "Parent" line.
std::string LimitsBlock(const Command& c, const std::string* parent);
// slurmdbd's names for changed associations: "C = anchor     A = nlp of root" for an account,
// "C = %-10s A = %-Ns U = %-9s" for a user's (N is 20 when modifying, 10 when removing).
std::string AccountObject(const AssociationView& view, const Association& a);
std::string UserObject(const AssociationView& view, const Association& a, int account_width);
// The lines of users that would lose their default account, or "".
std::string DefaultAccountConflicts(const AssociationView& view,
                                    const std::set<const Association*>& deleted);

ChangePlan PlanAddAccount(const Command& c, const AssociationView& view);
ChangePlan PlanAddUser(const Command& c, const AssociationView& view);
ChangePlan PlanModifyAccount(const Command& c, const AssociationView& view);
ChangePlan PlanModifyUser(const Command& c, const AssociationView& view);
ChangePlan PlanDeleteAccount(const Command& c, const AssociationView& view);
ChangePlan PlanDeleteUser(const Command& c, const AssociationView& view);

}  // namespace canopy::ctl::sacctmgr::internal
