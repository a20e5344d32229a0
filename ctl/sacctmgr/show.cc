#include "ctl/sacctmgr/show.h"

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "ctl/sacctmgr/fields.h"

namespace canopy::ctl::sacctmgr {
namespace {

// sacctmgr's default formats (association_functions.c, account_functions.c, user_functions.c).
constexpr char kAssociationFormat[] =
    "Cluster,Account,User,Part,Share,Priority,GrpJ,GrpTRES,GrpS,GrpWall,GrpTRESMins,MaxJ,"
    "MaxTRES,MaxTRESPerN,MaxS,MaxW,MaxTRESMins,QOS,DefaultQOS,GrpTRESRunMins";
constexpr char kAccountFormat[] = "Acc,Des,O";
constexpr char kAccountAssocFormat[] =
    "Cl,ParentN,U,Share,Priority,GrpJ,GrpN,GrpCPUs,GrpMEM,GrpS,GrpWall,GrpCPUMins,MaxJ,MaxN,"
    "MaxCPUs,MaxS,MaxW,MaxCPUMins,QOS,DefaultQOS";
constexpr char kUserFormat[] = "U,DefaultA,Ad";
constexpr char kUserAssocFormat[] =
    "Cl,Acc,Part,Share,Priority,MaxJ,MaxN,MaxCPUs,MaxS,MaxW,MaxCPUMins,QOS,DefaultQOS";

std::vector<std::string> Items(const char* format) { return absl::StrSplit(format, ','); }

// An empty condition list matches everything; names compare without case, as slurmdbd does.
bool Matches(const std::vector<std::string>& list, const std::string& value) {
  return list.empty() ||
         std::find(list.begin(), list.end(), absl::AsciiStrToLower(value)) != list.end();
}

bool ClusterMatches(const Command& c, const AssociationView& view) {
  return Matches(c.clusters, view.cluster());
}

// The association conditions (Accounts=, Users=, Parent=) on one association.
bool AssociationMatches(const Command& c, const AssociationView& view, const Association& a) {
  if (!Matches(c.accounts, a.account())) {
    return false;
  }
  if (!c.users.empty() && (a.user().empty() || !Matches(c.users, a.user()))) {
    return false;
  }
  return c.parents.empty() || (a.user().empty() && Matches(c.parents, view.ParentOf(a)));
}

std::vector<RowSubject> AssociationRows(const Command& c, const AssociationView& view) {
  std::vector<RowSubject> rows;
  for (const Association* a : view.Hierarchical()) {
    if (AssociationMatches(c, view, *a)) {
      rows.push_back({nullptr, "", a});
    }
  }
  return rows;
}

std::vector<RowSubject> AccountRows(const Command& c, const AssociationView& view) {
  std::vector<RowSubject> rows;
  for (const std::string& name : view.AccountNames()) {
    const Association* account = view.Account(name);
    if (!Matches(c.names, name) || !Matches(c.descriptions, view.Description(*account)) ||
        !Matches(c.organizations, view.Organization(*account)) ||
        (!c.parents.empty() && !Matches(c.parents, view.ParentOf(*account)))) {
      continue;
    }
    if (!c.with_assoc) {
      rows.push_back({account, "", nullptr});
      continue;
    }
    for (const Association* a : view.Hierarchical()) {
      if (a->account() == name && (c.users.empty() || Matches(c.users, a->user()))) {
        rows.push_back({account, "", a});
      }
    }
  }
  return rows;
}

std::vector<RowSubject> UserRows(const Command& c, const AssociationView& view) {
  std::vector<RowSubject> rows;
  for (const std::string& user : view.UserNames()) {
    if (!Matches(c.names, user) || !Matches(c.default_accounts, view.DefaultAccount(user))) {
      continue;
    }
    if (!c.admin_levels.empty()) {
      const std::string level = view.UserAttribute(user, "AdminLevel");
      if (!Matches(c.admin_levels, level.empty() ? "None" : level)) {
        continue;
      }
    }
    std::vector<const Association*> mine;
    for (const Association* a : view.AssociationsOf(user)) {
      if (Matches(c.accounts, a->account())) {
        mine.push_back(a);
      }
    }
    if (mine.empty()) {
      continue;  // Accounts= the user is not in
    }
    if (!c.with_assoc) {
      rows.push_back({nullptr, user, nullptr});
      continue;
    }
    for (const Association* a : mine) {
      rows.push_back({nullptr, user, a});
    }
  }
  return rows;
}

}  // namespace

absl::StatusOr<std::string> RenderShow(const GlobalOptions& options, const Command& command,
                                       const AssociationView& view) {
  std::vector<std::string> items = command.format;
  if (items.empty()) {
    switch (command.entity) {
      case Entity::kAssociation:
        items = Items(kAssociationFormat);
        break;
      case Entity::kAccount:
        items = Items(kAccountFormat);
        if (command.with_assoc) {
          for (const std::string& i : Items(kAccountAssocFormat)) {
            items.push_back(i);
          }
        }
        break;
      default:
        items = Items(kUserFormat);
        if (command.with_assoc) {
          for (const std::string& i : Items(kUserAssocFormat)) {
            items.push_back(i);
          }
        }
        break;
    }
  }
  absl::StatusOr<std::vector<Field>> fields = ParseFields(items);
  if (!fields.ok()) {
    return fields.status();
  }
  std::vector<output::FieldColumn> columns;
  for (const Field& f : *fields) {
    columns.push_back(f.column);
  }
  const output::FieldsPrinter printer(columns, options.mode, !options.no_header);
  std::string text = printer.Header();
  if (!ClusterMatches(command, view)) {
    return text;
  }
  const std::vector<RowSubject> rows =
      command.entity == Entity::kAssociation ? AssociationRows(command, view)
      : command.entity == Entity::kAccount   ? AccountRows(command, view)
                                             : UserRows(command, view);
  for (const RowSubject& row : rows) {
    std::vector<output::FieldCell> cells;
    for (const Field& f : *fields) {
      cells.push_back(FieldValue(f, row, view));
    }
    text += printer.Row(cells);
  }
  return text;
}

}  // namespace canopy::ctl::sacctmgr
