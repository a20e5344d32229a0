// sshare's output, as Slurm 22.05 prints it (tests/data/slurm-reference/accounting-outputs-
// 22.05.txt). Pure: RenderSshare turns a GetSharesResponse into sshare's text, so tests compare
// it byte for byte with the reference. Thread-safe.
//
// Columns (-o names, matched like sshare: a case-insensitive prefix, first in sshare's field
// order; "%N" sets the width): Account, Cluster, EffectvUsage, FairShare, LevelFS, ID,
// NormShares, NormUsage, Partition, RawShares, RawUsage, User, GrpTRESMins, TRESRunMins.
// Cluster, ID and Partition are blank (the answer does not carry them); GrpTRESMins is blank
// (no TRES-minute limits) and TRESRunMins is Slurm's zero list "cpu=0,mem=0,energy=0,node=0,
// billing=0,fs/disk=0,vmem=0,pages=0" (Canopy does not report running TRES-minutes).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "canopy/v1/accounts.pb.h"
#include "ctl/sshare/options.h"

namespace canopy::ctl::sshare {

// The rows sshare shows: without -a or -u, account rows and `caller`'s user rows (sshare asks
// for the caller's user only); -u LIST instead of the caller; -A LIST only those accounts'
// rows; -U only user rows. InvalidArgument "Invalid field requested: \"X\"" for a bad -o name
// (sshare prints it after "sshare: error: " and exits 1).
absl::StatusOr<std::string> RenderSshare(const SshareOptions& options,
                                         const canopy::v1::GetSharesResponse& shares,
                                         absl::string_view caller);

// sshare -e: the field names, four to a line.
std::string RenderSshareFieldNames();

}  // namespace canopy::ctl::sshare
