// Fair Tree and classic fair share (fair_share.h).
#include "scheduler/fairshare/fair_share.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace canopy::fairshare {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Slurm gives an account marked Fairshare=parent the level_fs NO_VAL: above every finite value,
// below infinity.
constexpr double kParentLevelFs = 4294967294.0;

// Raw usage of every node: users from the ledger, accounts the sum of their users. Children are
// built after their parents, so a walk from the last node up adds each into its parent.
std::vector<double> RawUsage(const AssociationTree& tree, const UsageLedger& ledger,
                             absl::Time now) {
  std::vector<double> raw(tree.size(), 0.0);
  for (size_t i = tree.size(); i-- > 1;) {
    const AssociationTree::Node& n = tree.node(static_cast<int32_t>(i));
    if (n.is_user()) {
      raw[i] += ledger.Usage(n.spec.account, n.spec.user, now);
    }
    raw[n.parent] += raw[i];
  }
  return raw;
}

// Shares normalised among siblings (those not marked "parent").
void SiblingShares(const AssociationTree& tree, std::vector<ShareRow>& rows) {
  for (size_t p = 0; p < tree.size(); ++p) {
    const std::vector<int32_t>& children = tree.node(static_cast<int32_t>(p)).children;
    int64_t sum = 0;
    for (int32_t c : children) {
      sum += std::max<int64_t>(0, tree.node(c).spec.shares);
    }
    for (int32_t c : children) {
      const int64_t shares = tree.node(c).spec.shares;
      rows[c].norm_shares = shares == kParentShares ? rows[p].norm_shares
                            : sum > 0 ? static_cast<double>(shares) / static_cast<double>(sum)
                                      : 0.0;
    }
  }
}

class FairTreeRanking {
 public:
  FairTreeRanking(const AssociationTree& tree, std::vector<ShareRow>& rows, int32_t users)
      : tree_(tree), rows_(rows), users_(users), rank_(users), next_(users) {}

  // Slurm's _calc_tree_fs: sort siblings by level_fs, rank users, recurse into accounts with
  // tied accounts' children merged.
  void Walk(std::vector<int32_t> siblings, bool account_tied) {
    for (int32_t s : siblings) {
      LevelFs(s);
    }
    std::stable_sort(siblings.begin(), siblings.end(), [&](int32_t a, int32_t b) {
      if (rows_[a].level_fs != rows_[b].level_fs) {
        return rows_[a].level_fs > rows_[b].level_fs;
      }
      return tree_.node(a).is_user() && !tree_.node(b).is_user();
    });
    double previous = std::numeric_limits<double>::quiet_NaN();
    for (size_t k = 0; k < siblings.size(); ++k) {
      const int32_t s = siblings[k];
      const bool tied = account_tied || rows_[s].level_fs == previous;
      account_tied = false;
      if (tree_.node(s).is_user()) {
        if (!tied) {
          rank_ = next_;
        }
        rows_[s].fairshare = static_cast<double>(rank_) / static_cast<double>(users_);
        --next_;
      } else {
        std::vector<int32_t> merged = tree_.node(s).children;
        size_t last = k;
        while (last + 1 < siblings.size() && !tree_.node(siblings[last + 1]).is_user() &&
               rows_[siblings[last + 1]].level_fs == rows_[s].level_fs) {
          ++last;
          const std::vector<int32_t>& more = tree_.node(siblings[last]).children;
          merged.insert(merged.end(), more.begin(), more.end());
        }
        Walk(std::move(merged), tied);
        k = last;
      }
      previous = rows_[s].level_fs;
    }
  }

 private:
  void LevelFs(int32_t n) {
    ShareRow& r = rows_[n];
    if (tree_.node(n).spec.shares == kParentShares) {
      r.level_fs = tree_.node(n).is_user() ? kInfinity : kParentLevelFs;
    } else if (r.norm_shares == 0) {
      r.level_fs = 0;
    } else {
      r.level_fs = r.effective_usage == 0 ? kInfinity : r.norm_shares / r.effective_usage;
    }
  }

  const AssociationTree& tree_;
  std::vector<ShareRow>& rows_;
  const int32_t users_;
  int32_t rank_;
  int32_t next_;
};

void FairTree(const AssociationTree& tree, const std::vector<double>& raw,
              std::vector<ShareRow>& rows) {
  SiblingShares(tree, rows);
  rows[0].effective_usage = 1.0;
  rows[0].level_fs = 1.0;
  for (size_t i = 1; i < tree.size(); ++i) {
    const double parent = raw[tree.node(static_cast<int32_t>(i)).parent];
    rows[i].effective_usage = parent > 0 ? raw[i] / parent : 0.0;
  }
  const int32_t users = static_cast<int32_t>(tree.UserAssociations().size());
  if (users > 0) {
    FairTreeRanking(tree, rows, users).Walk(tree.node(tree.root()).children, false);
  }
}

void Classic(const AssociationTree& tree, const std::vector<ShareRow>& sibling,
             const FairShareOptions& options, std::vector<ShareRow>& rows) {
  // S along the path; UE down the tree (parents come before children).
  rows[0].norm_shares = 1.0;
  rows[0].effective_usage = 1.0;
  for (size_t i = 1; i < tree.size(); ++i) {
    const AssociationTree::Node& n = tree.node(static_cast<int32_t>(i));
    const ShareRow& parent = rows[n.parent];
    ShareRow& r = rows[i];
    if (n.spec.shares == kParentShares) {
      r.norm_shares = parent.norm_shares;
      r.effective_usage = parent.effective_usage;
    } else {
      r.norm_shares = parent.norm_shares * sibling[i].norm_shares;
      r.effective_usage =
          n.parent == tree.root()
              ? r.norm_usage
              : r.norm_usage + (parent.effective_usage - r.norm_usage) * sibling[i].norm_shares;
    }
    r.fairshare =
        r.norm_shares > 0 ? std::exp2(-r.effective_usage / r.norm_shares / options.dampening) : 0.0;
  }
}

}  // namespace

std::vector<ShareRow> ComputeFairShare(const AssociationTree& tree, const UsageLedger& ledger,
                                       absl::Time now, const FairShareOptions& options) {
  const std::vector<double> raw = RawUsage(tree, ledger, now);
  std::vector<ShareRow> rows(tree.size());
  for (size_t i = 0; i < tree.size(); ++i) {
    rows[i].node = static_cast<int32_t>(i);
    rows[i].raw_shares = i == 0 ? 0 : tree.node(static_cast<int32_t>(i)).spec.shares;
    rows[i].raw_usage = raw[i];
    rows[i].norm_usage = raw[0] > 0 ? raw[i] / raw[0] : 0.0;
  }
  if (options.algorithm == FairShareAlgorithm::kFairTree) {
    FairTree(tree, raw, rows);
  } else {
    std::vector<ShareRow> sibling = rows;
    SiblingShares(tree, sibling);
    Classic(tree, sibling, options, rows);
  }
  return rows;
}

}  // namespace canopy::fairshare
