// sacctmgr's command line: getopt options (common/slurm/getopt.h), then the command words
// ("show assoc where user=root format=account%20", "add account vision Fairshare=70"), read by
// sacctmgr's rules: keywords and option names are case-insensitive prefixes with a minimum
// length ("ass" = associations, "f=" = Fairshare); "where" starts conditions and "set" starts
// settings; lists are comma-separated; names and descriptions are lower-cased, as Slurm stores
// them. Pure; thread-safe.
//
// Served: -i/--immediate, -n/--noheader, -p/--parsable, -P/--parsable2, -s/--associations,
// -Q/--quiet, -r/--readonly, -h/--help/--usage; the commands
//   add|create account NAMES [Parent= Fairshare= Description= Organization= limits...]
//   add|create user NAMES Account=LIST [DefaultAccount= AdminLevel= Fairshare= limits...]
//   show|list associations|accounts|users [where CONDITIONS] [Format=...] [WithAssoc]
//   modify|update account|user [where] CONDITIONS set SETTINGS
//   delete|remove account|user [where] CONDITIONS
//   add|show|modify|delete qos (qos_words.h)
//   dump CLUSTER [File=F]      load FILE [Cluster=C] [Clean]      help      version
// Limits (GrpJobs=, MaxJobs=, MaxWall=, GrpTRES=, QOS=, ...) are kept as the association's
// attributes under sacctmgr's flat-file names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ctl/output/print_fields.h"

namespace canopy::ctl::sacctmgr {

enum class Verb { kAdd, kList, kModify, kDelete, kDump, kLoad, kHelp, kVersion };
enum class Entity { kNone, kAccount, kAssociation, kUser, kQos };

// Fairshare=parent.
inline constexpr int64_t kParentShares = -1;

struct GlobalOptions {
  bool immediate = false;   // -i: commit without asking
  bool no_header = false;   // -n
  bool with_assoc = false;  // -s
  bool quiet = false;       // -Q
  bool readonly = false;    // -r
  bool help = false;        // -h
  output::FieldsMode mode = output::FieldsMode::kTable;
};

struct Command {
  Verb verb = Verb::kHelp;
  Entity entity = Entity::kNone;

  // Conditions ("where", and the names of add).
  std::vector<std::string> names;     // accounts, users or QOS (of account, user, qos commands)
  std::vector<std::string> accounts;  // Accounts= (user and association commands)
  std::vector<std::string> users;     // Users= (association commands)
  std::vector<std::string> clusters;
  std::vector<std::string> parents;
  std::vector<std::string> descriptions;
  std::vector<std::string> organizations;
  std::vector<std::string> default_accounts;
  std::vector<std::string> admin_levels;
  std::vector<std::string> preempt_modes;  // PreemptMode= (QOS): "off", "cancel", "requeue", ...
  std::vector<std::string> format;         // Format= items, "account%20"
  bool with_assoc = false;                 // WithAssoc
  bool any_condition = false;              // any condition given (delete refuses none)

  // Settings (everything of add; what follows "set" in modify).
  std::optional<int64_t> shares;  // Fairshare=; kParentShares for "parent"
  std::optional<std::string> parent;
  // Description, Organization, DefaultAccount, AdminLevel and limits, flat-file spelling; for
  // QOS the options canopyd's UpdateQos takes (qos_words.h).
  std::vector<std::pair<std::string, std::string>> settings;
  bool any_setting = false;

  // dump / load.
  std::string cluster;
  std::string file;
};

struct Invocation {
  GlobalOptions options;
  Command command;
};

// InvalidArgument whose message is exactly what sacctmgr prints to stderr (lines without the
// final newline): getopt's errors as "sacctmgr: unrecognized option ..." with the "Try" line,
// "invalid keyword: X", "No valid entity in list command" and its "Input line must include"
// line, " Unknown condition: X" / " Unknown option: X" with their second line,
// "sacctmgr: error: Invalid value for FairShare (X)". Unimplemented for an entity or command
// that Slurm has and Canopy does not serve (clusters, WCKeys, ...).
absl::StatusOr<Invocation> ParseSacctmgrArgs(const std::vector<std::string>& args);

// The value of setting `key` (case-insensitive), or nullptr.
const std::string* Setting(const Command& command, absl::string_view key);

}  // namespace canopy::ctl::sacctmgr
