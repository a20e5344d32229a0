// sacctmgr's flat file, as `sacctmgr dump CLUSTER file=F` writes it and `sacctmgr load F` reads
// it (sacctmgr(1), "FLAT FILE DUMP AND LOAD"): one record per line,
//
//   Cluster - 'anchor':Fairshare=1:QOS='normal'
//   Parent - 'root'
//   Account - 'vision':Description='vision':Organization='lab':Fairshare=70
//   User - 'alice':DefaultAccount='vision':Fairshare=1
//
// A Parent line names the account the Account and User lines after it belong to (it must have
// been created by an earlier line, or be root). Names and values may be in single quotes (which
// may hold ':'); options may come in any order; '#' starts a comment line. Pure; thread-safe.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace canopy::slurm {

struct FlatFileRecord {
  enum class Kind { kCluster, kParent, kAccount, kUser, kQos };
  Kind kind = Kind::kAccount;
  std::string name;
  // Options as written (key case kept, quotes removed), in file order.
  std::vector<std::pair<std::string, std::string>> options;
  int line = 0;  // 1-based line in the file

  // The value of option `key` (case-insensitive), or nullptr.
  const std::string* Option(absl::string_view key) const;
};

// Parses the whole file. InvalidArgument "<origin>:<line>: ..." naming what was wrong: an
// unknown record type ("expected Cluster, Parent, Account, User or QOS"), a missing " - ", an
// empty name, an option without '=', an unterminated quote.
absl::StatusOr<std::vector<FlatFileRecord>> ParseFlatFile(absl::string_view text,
                                                          absl::string_view origin);

// One record as sacctmgr dump writes it: `Account - 'nlp':Description='nlp':Fairshare=30`
// (names and text values quoted, numbers bare).
std::string FormatFlatFileRecord(const FlatFileRecord& record);

}  // namespace canopy::slurm
