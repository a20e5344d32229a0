// accounts.proto <-> the fair-share core (proto_convert_accounts.h).
#include "scheduler/server/proto_convert_accounts.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace canopy::server {
namespace {

void AddRows(const lifecycle::Accounting& a, int32_t node, int32_t depth,
             canopy::v1::GetSharesResponse& out) {
  const fairshare::AssociationTree& tree = a.tree();
  const fairshare::AssociationTree::Node& n = tree.node(node);
  canopy::v1::ShareRow& row = *out.add_rows();
  row.set_account(n.spec.account);
  row.set_user(n.spec.user);
  row.set_depth(depth);
  if (static_cast<size_t>(node) < a.shares().size()) {
    const fairshare::ShareRow& s = a.shares()[node];
    row.set_raw_shares(s.raw_shares);
    row.set_norm_shares(s.norm_shares);
    row.set_raw_usage(s.raw_usage);
    row.set_norm_usage(s.norm_usage);
    row.set_effective_usage(s.effective_usage);
    row.set_level_fs(s.level_fs);
    // Fair Tree gives only users a factor; classic fair share gives every association one.
    row.set_has_fairshare(n.is_user() || !a.fair_tree());
    row.set_fairshare(s.fairshare);
  }
  // Slurm's order (slurmdb_sort_hierarchical_assoc_list): an account's users first, then its
  // sub-accounts, each by name; the tree keeps the configuration's order.
  std::vector<int32_t> children = n.children;
  std::stable_sort(children.begin(), children.end(), [&tree](int32_t x, int32_t y) {
    const fairshare::AssociationSpec& a = tree.node(x).spec;
    const fairshare::AssociationSpec& b = tree.node(y).spec;
    if (a.is_user() != b.is_user()) {
      return a.is_user();
    }
    return a.is_user() ? a.user < b.user : a.account < b.account;
  });
  for (int32_t child : children) {
    AddRows(a, child, depth + 1, out);
  }
}

}  // namespace

canopy::v1::Association ToProto(const fairshare::AssociationSpec& spec) {
  canopy::v1::Association out;
  out.set_account(spec.account);
  out.set_user(spec.user);
  out.set_parent(spec.is_user() || spec.parent == "root" ? "" : spec.parent);
  out.set_shares(spec.shares);
  for (const auto& [key, value] : spec.attributes) {
    canopy::v1::Attribute& a = *out.add_attributes();
    a.set_key(key);
    a.set_value(value);
  }
  return out;
}

fairshare::AssociationSpec FromProto(const canopy::v1::Association& association) {
  fairshare::AssociationSpec spec;
  spec.account = association.account();
  spec.user = association.user();
  spec.parent = association.parent();
  spec.shares = association.shares();
  for (const canopy::v1::Attribute& a : association.attributes()) {
    spec.attributes.emplace_back(a.key(), a.value());
  }
  return spec;
}

absl::StatusOr<fairshare::AssociationEdit> FromProto(
    canopy::v1::UpdateAssociationsRequest::Operation operation) {
  using Request = canopy::v1::UpdateAssociationsRequest;
  switch (operation) {
    case Request::OPERATION_ADD:
      return fairshare::AssociationEdit::kAdd;
    case Request::OPERATION_MODIFY:
      return fairshare::AssociationEdit::kModify;
    case Request::OPERATION_DELETE:
      return fairshare::AssociationEdit::kDelete;
    case Request::OPERATION_REPLACE:
      return fairshare::AssociationEdit::kReplace;
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "operation: expected ADD, MODIFY, DELETE or REPLACE, got ", static_cast<int>(operation)));
  }
}

canopy::v1::GetSharesResponse SharesToProto(const lifecycle::Accounting& accounting) {
  canopy::v1::GetSharesResponse out;
  out.set_fair_tree(accounting.fair_tree());
  AddRows(accounting, accounting.tree().root(), 0, out);
  return out;
}

canopy::v1::JobPriority PriorityToProto(const core::Job& job,
                                        const lifecycle::Accounting& accounting, absl::Time now) {
  const fairshare::Priority p = accounting.PriorityOf(job, now);
  canopy::v1::JobPriority out;
  out.set_job_id(job.id.value());
  out.set_partition(job.partition);
  out.set_user(job.user_name);
  out.set_account(job.spec->account);
  out.set_priority(job.priority_fixed ? job.priority : p.total);
  out.set_age(p.age);
  out.set_fairshare(p.fairshare);
  out.set_job_size(p.job_size);
  out.set_partition_factor(p.partition);
  out.set_qos(p.qos);
  out.set_nice(p.nice);
  out.set_qos_name(job.qos.empty() ? std::string(limits::kNormalQos) : job.qos);
  return out;
}

}  // namespace canopy::server
