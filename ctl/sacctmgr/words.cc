#include "ctl/sacctmgr/words.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace canopy::ctl::sacctmgr {
namespace {

struct LimitKey {
  const char* name;  // flat-file spelling
  size_t min;        // shortest prefix sacctmgr accepts
};

// sacctmgr_set_assoc_rec's limit names, in its order: a shorter name that is a prefix of a
// longer one comes first ("GrpTRES" before "GrpTRESMins").
constexpr LimitKey kLimits[] = {
    {"DefaultQOS", 8},      {"GrpJobs", 4},
    {"GrpSubmitJobs", 4},   {"GrpTRES", 7},
    {"GrpTRESMins", 7},     {"GrpTRESRunMins", 7},
    {"GrpWall", 4},         {"MaxJobs", 4},
    {"MaxSubmitJobs", 4},   {"MaxTRESPerJob", 7},
    {"MaxTRESPerNode", 11}, {"MaxTRESMinsPerJob", 8},
    {"MaxTRESRunMins", 8},  {"MaxWallDurationPerJob", 4},
    {"Priority", 3},        {"QOS", 1},
};

absl::Status NoEntity(absl::string_view verb, absl::string_view must) {
  return absl::InvalidArgumentError(
      absl::StrCat("No valid entity in ", verb, " command\nInput line must include ", must));
}

absl::Status NotServed(absl::string_view verb, absl::string_view word) {
  return absl::UnimplementedError(
      absl::StrCat("sacctmgr: error: '", verb, " ", word,
                   "' is not served by Canopy (accounts, users, associations and QOS are)"));
}

}  // namespace

Token ParseToken(absl::string_view word) {
  Token t;
  t.text = std::string(word);
  const size_t eq = word.find('=');
  if (eq == absl::string_view::npos) {
    t.key = t.value = std::string(word);
    return t;
  }
  t.has_value = true;
  size_t key_end = eq;
  if (key_end > 0 && (word[key_end - 1] == '+' || word[key_end - 1] == '-')) {
    --key_end;
  }
  t.key = std::string(word.substr(0, key_end));
  t.value = std::string(word.substr(eq + 1));
  return t;
}

bool KeyIs(absl::string_view key, absl::string_view name, size_t min) {
  return !key.empty() && key.size() >= min && absl::StartsWithIgnoreCase(name, key);
}

std::string StripQuotes(absl::string_view value) {
  if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') &&
      value.back() == value.front()) {
    value = value.substr(1, value.size() - 2);
  }
  return std::string(value);
}

void AddToList(absl::string_view value, std::vector<std::string>& list) {
  for (absl::string_view part : absl::StrSplit(value, ',', absl::SkipEmpty())) {
    std::string item = absl::AsciiStrToLower(StripQuotes(absl::StripAsciiWhitespace(part)));
    if (!item.empty() && std::find(list.begin(), list.end(), item) == list.end()) {
      list.push_back(std::move(item));
    }
  }
}

const char* LimitName(absl::string_view key) {
  for (const LimitKey& l : kLimits) {
    if (KeyIs(key, l.name, l.min)) {
      return l.name;
    }
  }
  // Older spellings sacctmgr still takes.
  if (KeyIs(key, "QosLevel", 1)) {
    return "QOS";
  }
  return nullptr;
}

const std::vector<LimitLabel>& LimitLabels() {
  // sacctmgr_print_assoc_limits's order and labels (Fairshare and Parent are printed apart).
  static const std::vector<LimitLabel> kLabels = {
      {"GrpJobs", "  GrpJobs       = "},
      {"GrpSubmitJobs", "  GrpSubmitJobs = "},
      {"GrpTRES", "  GrpTRES       = "},
      {"GrpTRESMins", "  GrpTRESMins   = "},
      {"GrpTRESRunMins", "  GrpTRESRunMins= "},
      {"GrpWall", "  GrpWall       = "},
      {"MaxJobs", "  MaxJobs       = "},
      {"MaxSubmitJobs", "  MaxSubmitJobs = "},
      {"MaxTRESPerJob", "  MaxTRES       = "},
      {"MaxTRESPerNode", "  MaxTRESPerNode= "},
      {"MaxTRESMinsPerJob", "  MaxTRESMins   = "},
      {"MaxTRESRunMins", "  MaxTRESRUNMins= "},
      {"MaxWallDurationPerJob", "  MaxWall       = "},
      {"Priority", "  Priority      = "},
      {"QOS", "  QOS           = "},
      {"DefaultQOS", "  DefQOS        = "},
  };
  return kLabels;
}

std::optional<std::string> AdminLevelName(absl::string_view value) {
  for (const char* level : {"None", "Operator", "Administrator"}) {
    if (KeyIs(value, level, 1)) {
      return std::string(level);
    }
  }
  if (KeyIs(value, "Admin", 1)) {
    return std::string("Administrator");
  }
  return std::nullopt;
}

absl::StatusOr<Entity> ReadEntity(Verb verb, absl::string_view w) {
  switch (verb) {
    case Verb::kAdd:
      if (WordIs(w, "Account", 1) || WordIs(w, "Acct", 4)) {
        return Entity::kAccount;
      }
      if (WordIs(w, "User", 1)) {
        return Entity::kUser;
      }
      if (WordIs(w, "Cluster", 2) || WordIs(w, "Coordinator", 2) || WordIs(w, "Federation", 1)) {
        return NotServed("add", w);
      }
      if (WordIs(w, "QOS", 1)) {
        return Entity::kQos;
      }
      if (WordIs(w, "Resource", 1)) {
        return NotServed("add", w);
      }
      return NoEntity("add",
                      "\"Account\", \"Cluster\", \"Coordinator\", \"Federation\", "
                      "\"QOS\", \"Resource\", or \"User\"");
    case Verb::kList:
      if (WordIs(w, "Accounts", 2) || WordIs(w, "Acct", 4)) {
        return Entity::kAccount;
      }
      if (WordIs(w, "Associations", 2)) {
        return Entity::kAssociation;
      }
      if (WordIs(w, "Users", 1)) {
        return Entity::kUser;
      }
      for (const auto& [name, min] :
           std::initializer_list<std::pair<const char*, size_t>>{{"Clusters", 2},
                                                                 {"Configuration", 2},
                                                                 {"Events", 1},
                                                                 {"Federation", 1},
                                                                 {"Problems", 1},
                                                                 {"RunawayJobs", 2},
                                                                 {"OrphanJobs", 1},
                                                                 {"LostJobs", 1},
                                                                 {"QOS", 1},
                                                                 {"Resource", 4},
                                                                 {"Reservations", 4},
                                                                 {"Resv", 4},
                                                                 {"Stats", 1},
                                                                 {"Transactions", 1},
                                                                 {"Txn", 1},
                                                                 {"WCKeys", 1},
                                                                 {"tres", 2}}) {
        if (WordIs(w, name, min)) {
          return std::string(name) == "QOS" ? absl::StatusOr<Entity>(Entity::kQos)
                                            : NotServed("list", w);
        }
      }
      return NoEntity("list",
                      "\"Account\", \"Association\", \"Cluster\", \"Configuration\",\n"
                      "\"Event\", \"Federation\", \"Problem\", \"QOS\", \"Resource\", "
                      "\"Reservation\",\n\"RunAwayJobs\", \"Stats\", \"Transaction\", \"TRES\", "
                      "\"User\", or \"WCKey\"");
    case Verb::kModify:
      if (WordIs(w, "Accounts", 1) || WordIs(w, "Acct", 4)) {
        return Entity::kAccount;
      }
      if (WordIs(w, "Users", 1)) {
        return Entity::kUser;
      }
      if (WordIs(w, "Clusters", 5) || WordIs(w, "Federation", 1) || WordIs(w, "Job", 1)) {
        return NotServed("modify", w);
      }
      if (WordIs(w, "QOSs", 1)) {
        return Entity::kQos;
      }
      if (WordIs(w, "Resource", 1)) {
        return NotServed("modify", w);
      }
      return NoEntity("modify",
                      "\"Account\", \"Cluster\", \"Federation\", \"Job\", \"QOS\", "
                      "\"Resource\" or \"User\"");
    case Verb::kDelete:
      if (WordIs(w, "Accounts", 1) || WordIs(w, "Acct", 4)) {
        return Entity::kAccount;
      }
      if (WordIs(w, "Users", 1)) {
        return Entity::kUser;
      }
      if (WordIs(w, "Clusters", 2) || WordIs(w, "Coordinators", 2) || WordIs(w, "Federations", 1)) {
        return NotServed("delete", w);
      }
      if (WordIs(w, "QOS", 2)) {
        return Entity::kQos;
      }
      if (WordIs(w, "Resource", 1)) {
        return NotServed("delete", w);
      }
      return NoEntity("delete",
                      "\"Account\", \"Cluster\", \"Coordinator\", \"Federation\", "
                      "\"QOS\", \"Resource\", or \"User\"");
    default:
      return Entity::kNone;
  }
}

}  // namespace canopy::ctl::sacctmgr
