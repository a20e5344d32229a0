#include "ctl/sacctmgr/flat_file.h"

#include <algorithm>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace canopy::ctl::sacctmgr {
namespace {

using slurm::FlatFileRecord;

// Attributes written by name before the limits, and not repeated among them.
bool IsRecordField(absl::string_view key) {
  for (const char* k :
       {"Description", "Organization", "DefaultAccount", "AdminLevel", "Fairshare"}) {
    if (absl::EqualsIgnoreCase(key, k)) {
      return true;
    }
  }
  return false;
}

std::string SharesText(int64_t shares) { return shares < 0 ? "parent" : absl::StrCat(shares); }

FlatFileRecord Record(const AssociationView& view, const Association& a) {
  FlatFileRecord r;
  if (a.user().empty()) {
    r.kind = FlatFileRecord::Kind::kAccount;
    r.name = a.account();
    r.options = {{"Description", view.Description(a)}, {"Organization", view.Organization(a)}};
  } else {
    r.kind = FlatFileRecord::Kind::kUser;
    r.name = a.user();
    r.options = {{"DefaultAccount", view.DefaultAccount(a.user())}};
    // AdminLevel is the user's, whichever association carries it.
    if (const std::string level = view.UserAttribute(a.user(), "AdminLevel");
        !level.empty() && level != "None") {
      r.options.emplace_back("AdminLevel", level);
    }
  }
  r.options.emplace_back("Fairshare", SharesText(a.shares()));
  for (const canopy::v1::Attribute& attr : a.attributes()) {
    if (!IsRecordField(attr.key()) && !attr.value().empty()) {
      r.options.emplace_back(attr.key(), attr.value());
    }
  }
  return r;
}

// print_file_slurmdb_hierarchical_rec_list: each account of this level with children gets a
// Parent line and its children; then the next level down, account by account.
void DumpLevel(const AssociationView& view, const std::vector<const Association*>& level,
               std::vector<FlatFileRecord>& out) {
  for (const Association* a : level) {
    const std::vector<const Association*> children =
        a->user().empty() ? view.Children(a->account()) : std::vector<const Association*>();
    if (children.empty()) {
      continue;
    }
    out.push_back({FlatFileRecord::Kind::kParent, a->account(), {}, 0});
    for (const Association* c : children) {
      out.push_back(Record(view, *c));
    }
  }
  for (const Association* a : level) {
    if (a->user().empty()) {
      DumpLevel(view, view.Children(a->account()), out);
    }
  }
}

absl::StatusOr<int64_t> Shares(const FlatFileRecord& r) {
  const std::string* v = r.Option("Fairshare");
  if (v == nullptr) {
    return 1;
  }
  if (absl::EqualsIgnoreCase(*v, "parent")) {
    return -1;
  }
  int64_t n = 0;
  if (!absl::SimpleAtoi(*v, &n) || n < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(" Bad Fairshare value on line ", r.line, ": ", *v));
  }
  return n;
}

}  // namespace

const char kDumpHeader[] =
    "# To edit this file start with a cluster line for the new cluster\n"
    "# Cluster - 'cluster_name':MaxTRESPerJob=node=50\n"
    "# Followed by Accounts you want in this fashion (root is created by default)...\n"
    "# Parent - 'root'\n"
    "# Account - 'cs':MaxTRESPerJob=node=5:MaxJobs=4:MaxTRESMinsPerJob=cpu=20:FairShare=399:"
    "MaxWallDurationPerJob=40:Description='Computer Science':Organization='LC'\n"
    "# Any of the options after a ':' can be left out and they can be in any order.\n"
    "# If you want to add any sub accounts just list the Parent THAT HAS ALREADY\n"
    "# BEEN CREATED before the account line in this fashion...\n"
    "# Parent - 'cs'\n"
    "# Account - 'test':MaxTRESPerJob=node=1:MaxJobs=1:MaxTRESMinsPerJob=cpu=1:FairShare=1:"
    "MaxWallDurationPerJob=1:Description='Test Account':Organization='Test'\n"
    "# To add users to a account add a line like this after a Parent - 'line'\n"
    "# User - 'lipari':MaxTRESPerJob=node=2:MaxJobs=3:MaxTRESMinsPerJob=cpu=4:FairShare=1:"
    "MaxWallDurationPerJob=1\n";

std::vector<FlatFileRecord> DumpRecords(const AssociationView& view) {
  const Association& root = *view.Account("root");
  std::vector<FlatFileRecord> out;
  out.push_back({FlatFileRecord::Kind::kCluster,
                 view.cluster(),
                 {{"Fairshare", SharesText(root.shares())}, {"QOS", view.Qos(root)}},
                 0});
  DumpLevel(view, {&root}, out);
  return out;
}

absl::StatusOr<LoadPlan> PlanLoad(const std::vector<FlatFileRecord>& records,
                                  const std::string& cluster_override, const std::string& file_name,
                                  const AssociationView& view) {
  LoadPlan plan;
  plan.request.set_operation(canopy::v1::UpdateAssociationsRequest::OPERATION_REPLACE);
  std::string cluster = cluster_override;
  std::string parent;  // no Parent line yet
  std::set<std::string> accounts = {"root"};
  std::string lines;
  for (const FlatFileRecord& r : records) {
    switch (r.kind) {
      case FlatFileRecord::Kind::kCluster:
        if (cluster.empty()) {
          cluster = r.name;
        }
        continue;
      case FlatFileRecord::Kind::kQos:
        continue;  // Canopy keeps no QOS records
      case FlatFileRecord::Kind::kParent:
        parent = absl::AsciiStrToLower(r.name);
        if (!accounts.contains(parent)) {
          return absl::InvalidArgumentError(absl::StrCat(" Parent '", r.name, "' on line ", r.line,
                                                         " was not created before it"));
        }
        continue;
      case FlatFileRecord::Kind::kAccount:
      case FlatFileRecord::Kind::kUser:
        break;
    }
    if (parent.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(" No Parent line before line ", r.line, " of ", file_name));
    }
    absl::StatusOr<int64_t> shares = Shares(r);
    if (!shares.ok()) {
      return shares.status();
    }
    Association* a = plan.request.add_associations();
    a->set_shares(*shares);
    if (r.kind == FlatFileRecord::Kind::kAccount) {
      a->set_account(absl::AsciiStrToLower(r.name));
      a->set_parent(parent == "root" ? "" : parent);
      accounts.insert(a->account());
    } else {
      a->set_account(parent);
      a->set_user(r.name);
    }
    for (const auto& [key, value] : r.options) {
      if (!absl::EqualsIgnoreCase(key, "Fairshare")) {
        canopy::v1::Attribute* attr = a->add_attributes();
        attr->set_key(key);
        attr->set_value(value);
      }
    }
    absl::StrAppend(&lines, "  ", slurm::FormatFlatFileRecord(r), "\n");
  }
  if (cluster.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(" No cluster name was given in ", file_name, "; use cluster=NAME"));
  }
  if (cluster != view.cluster()) {
    return absl::InvalidArgumentError(
        absl::StrCat(" Cluster ", cluster, " is not this cluster (", view.cluster(),
                     "); use cluster=", view.cluster(), " to load it here"));
  }
  plan.preview = absl::StrCat(" For cluster ", cluster, " the associations become those of ",
                              file_name, ":\n", lines);
  return plan;
}

}  // namespace canopy::ctl::sacctmgr
