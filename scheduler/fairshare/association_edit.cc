// sacctmgr's edits of an association tree (association_edit.h).
#include "scheduler/fairshare/association_edit.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace canopy::fairshare {
namespace {

std::string Describe(const AssociationSpec& spec) {
  return spec.is_user() ? absl::StrCat("user ", spec.user, " in ", spec.account)
                        : absl::StrCat("account ", spec.account);
}

// Index of the association in `specs`, or -1.
int Find(const std::vector<AssociationSpec>& specs, const AssociationSpec& key) {
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].account == key.account && specs[i].user == key.user) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

void SetAttribute(AssociationSpec& spec, const std::string& key, const std::string& value) {
  for (auto& [k, v] : spec.attributes) {
    if (absl::EqualsIgnoreCase(k, key)) {
      v = value;
      return;
    }
  }
  spec.attributes.emplace_back(key, value);
}

// Tree node ids of `node` and everything under it.
void Subtree(const AssociationTree& tree, int32_t node, std::set<int32_t>& out) {
  out.insert(node);
  for (int32_t c : tree.node(node).children) {
    Subtree(tree, c, out);
  }
}

}  // namespace

absl::StatusOr<AssociationTree> EditAssociations(const AssociationTree& tree, AssociationEdit edit,
                                                 const std::vector<AssociationSpec>& specs,
                                                 bool set_shares,
                                                 std::vector<std::string>& changed) {
  std::vector<std::string> lines;
  std::vector<AssociationSpec> out;
  switch (edit) {
    case AssociationEdit::kReplace:
      out = specs;
      for (const AssociationSpec& spec : specs) {
        lines.push_back(absl::StrCat("load ", Describe(spec)));
      }
      break;
    case AssociationEdit::kAdd:
      out = tree.Specs();
      for (const AssociationSpec& spec : specs) {
        if (Find(out, spec) >= 0) {
          return absl::AlreadyExistsError(
              absl::StrCat(Describe(spec), " already exists; use modify to change it"));
        }
        out.push_back(spec);
        lines.push_back(
            spec.is_user() ? absl::StrCat("add ", Describe(spec))
                           : absl::StrCat("add ", Describe(spec), " under ",
                                          spec.parent.empty() ? std::string("root") : spec.parent));
      }
      break;
    case AssociationEdit::kModify:
      out = tree.Specs();
      for (const AssociationSpec& spec : specs) {
        const int i = Find(out, spec);
        if (i < 0) {
          return absl::NotFoundError(absl::StrCat(Describe(spec), " does not exist"));
        }
        if (set_shares) {
          out[i].shares = spec.shares;
        }
        for (const auto& [key, value] : spec.attributes) {
          SetAttribute(out[i], key, value);
        }
        lines.push_back(absl::StrCat("modify ", Describe(spec)));
      }
      break;
    case AssociationEdit::kDelete: {
      std::set<int32_t> gone;
      for (const AssociationSpec& spec : specs) {
        const int32_t node = spec.is_user() ? tree.FindUser(spec.user, spec.account)
                                            : tree.FindAccount(spec.account);
        if (node <= 0) {  // 0 is root, which cannot go
          return absl::NotFoundError(node == 0 ? std::string("the root account cannot be deleted")
                                               : absl::StrCat(Describe(spec), " does not exist"));
        }
        Subtree(tree, node, gone);
      }
      for (size_t i = 1; i < tree.size(); ++i) {
        const AssociationSpec& spec = tree.node(static_cast<int32_t>(i)).spec;
        if (gone.contains(static_cast<int32_t>(i))) {
          lines.push_back(absl::StrCat("delete ", Describe(spec)));
        } else {
          out.push_back(spec);
        }
      }
      break;
    }
  }
  absl::StatusOr<AssociationTree> built = AssociationTree::Build(std::move(out));
  if (!built.ok()) {
    return built.status();
  }
  changed = std::move(lines);
  return built;
}

}  // namespace canopy::fairshare
