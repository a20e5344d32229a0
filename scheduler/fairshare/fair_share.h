// The fair-share factor of every association, from the tree's shares and the ledger's usage,
// as Slurm defines it (docs/design/fairshare.md):
//
// Fair Tree (the default; PriorityFlags without NO_FAIR_TREE). At each level S = shares
// normalised among siblings, U = usage / the parent's usage, LF = S / U ("Level FS": > 1
// under-served, infinity without usage, 0 without shares). Siblings are sorted by LF (users
// before accounts on ties) and the tree is walked depth first; users are ranked in that order,
// tied users share a rank, tied accounts have their children merged. A user's factor is
// rank / number of users: the most under-served user gets 1.0. If an account beats its sibling,
// every user under it beats every user under the sibling.
//
// Classic (NO_FAIR_TREE). S = the product down the tree of sibling-normalised shares; U = the
// association's usage / the cluster's; effective usage UE = U for the first level under root,
// else U + (UE_parent - U) * shares / shares of self and siblings; factor F = 2^(-UE / S / d)
// with d = FairShareDampeningFactor. 0.5 = used exactly its share.
//
// Fairshare=parent: the association counts as its parent (a user so marked ranks first in its
// account under Fair Tree; in the classic mode it takes its parent's values).
// Pure; thread-compatible.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/time/time.h"
#include "scheduler/fairshare/association_tree.h"
#include "scheduler/fairshare/usage_ledger.h"

namespace canopy::fairshare {

enum class FairShareAlgorithm { kFairTree, kClassic };

struct FairShareOptions {
  FairShareAlgorithm algorithm = FairShareAlgorithm::kFairTree;
  double dampening = 1.0;  // FairShareDampeningFactor (classic only)
};

// One association's numbers, as sshare -l shows them.
struct ShareRow {
  int32_t node = 0;            // in the AssociationTree
  int64_t raw_shares = 0;      // RawShares (kParentShares = "parent")
  double norm_shares = 0;      // NormShares: among siblings (Fair Tree), along the path (classic)
  double raw_usage = 0;        // RawUsage: decayed billing unit-seconds, users' sum for accounts
  double norm_usage = 0;       // NormUsage: raw / the cluster's
  double effective_usage = 0;  // EffectvUsage: raw / parent's (Fair Tree); UE (classic)
  double level_fs = 0;         // LevelFS (Fair Tree; infinity without usage)
  double fairshare = 0;        // FairShare factor in [0, 1] (users; accounts: classic only)
};

// One row per association, indexed like the tree's nodes; root first.
std::vector<ShareRow> ComputeFairShare(const AssociationTree& tree, const UsageLedger& ledger,
                                       absl::Time now, const FairShareOptions& options);

}  // namespace canopy::fairshare
