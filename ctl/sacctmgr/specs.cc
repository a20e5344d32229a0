#include "ctl/sacctmgr/specs.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "ctl/sacctmgr/qos_words.h"
#include "ctl/sacctmgr/words.h"

namespace canopy::ctl::sacctmgr {
namespace {

absl::Status SpecError(absl::string_view text) { return absl::InvalidArgumentError(text); }

// sacctmgr's " Unknown condition"/" Unknown option" pair of lines.
absl::Status UnknownCondition(absl::string_view token) {
  return SpecError(
      absl::StrCat(" Unknown condition: ", token, "\n Use keyword 'set' to modify value"));
}
absl::Status UnknownOption(absl::string_view token) {
  return SpecError(
      absl::StrCat(" Unknown option: ", token, "\n Use keyword 'where' to modify condition"));
}

// get_uint as sacctmgr uses it for FairShare, plus "parent".
absl::Status SetShares(absl::string_view value, Command& c) {
  const std::string v = StripQuotes(value);
  if (absl::StartsWithIgnoreCase(v, "parent")) {
    c.shares = kParentShares;
    return absl::OkStatus();
  }
  // strtol: leading digits count; "0x"/"abc" with no digits is an error, as is a negative.
  const size_t digits = v.find_first_not_of("0123456789");
  int64_t n = 0;
  if (!absl::SimpleAtoi(v.substr(0, digits), &n)) {
    return SpecError(absl::StrCat("sacctmgr: error: Invalid value for FairShare (", v, ")"));
  }
  c.shares = n;
  return absl::OkStatus();
}

// Association settings: FairShare, Parent and the limits, in sacctmgr_set_assoc_rec's order.
// Returns false when `key` is none of them.
absl::StatusOr<bool> SetAssocRec(absl::string_view key, absl::string_view value, Command& c) {
  if (KeyIs(key, "FairShare", 1) || KeyIs(key, "Shares", 1)) {
    if (absl::Status s = SetShares(value, c); !s.ok()) {
      return s;
    }
    return true;
  }
  if (KeyIs(key, "Parent", 1)) {
    c.parent = absl::AsciiStrToLower(StripQuotes(value));
    return true;
  }
  if (const char* limit = LimitName(key); limit != nullptr) {
    c.settings.emplace_back(limit, StripQuotes(value));
    return true;
  }
  return false;
}

absl::Status AccountCondition(const Token& t, Command& c) {
  if (!t.has_value && KeyIs(t.key, "WithAssoc", 5)) {
    c.with_assoc = true;
  } else if (!t.has_value && (KeyIs(t.key, "WithCoordinators", 5) ||
                              KeyIs(t.key, "WithDeleted", 5) || KeyIs(t.key, "WOPLimits", 4))) {
    // Accepted; Canopy has no coordinators, deleted records or inherited limits to show.
  } else if (!t.has_value || KeyIs(t.key, "Names", 1) || KeyIs(t.key, "Accounts", 1) ||
             KeyIs(t.key, "Acct", 4)) {
    AddToList(t.value, c.names);
  } else if (KeyIs(t.key, "Descriptions", 1)) {
    AddToList(t.value, c.descriptions);
  } else if (KeyIs(t.key, "Format", 1)) {
    AddToList(t.value, c.format);
    return absl::OkStatus();  // not a condition
  } else if (KeyIs(t.key, "Organizations", 1)) {
    AddToList(t.value, c.organizations);
  } else if (KeyIs(t.key, "Clusters", 1)) {
    AddToList(t.value, c.clusters);
  } else if (KeyIs(t.key, "Parent", 4)) {
    AddToList(t.value, c.parents);
  } else if (KeyIs(t.key, "Users", 1)) {
    AddToList(t.value, c.users);
  } else {
    return UnknownCondition(t.text);
  }
  c.any_condition = true;
  return absl::OkStatus();
}

absl::Status UserCondition(const Token& t, Command& c) {
  if (!t.has_value && KeyIs(t.key, "WithAssoc", 5)) {
    c.with_assoc = true;
  } else if (!t.has_value &&
             (KeyIs(t.key, "WithCoordinators", 5) || KeyIs(t.key, "WithDeleted", 5))) {
  } else if (!t.has_value || KeyIs(t.key, "Names", 1) || KeyIs(t.key, "Users", 1)) {
    AddToList(t.value, c.names);
  } else if (KeyIs(t.key, "AdminLevel", 2)) {
    AddToList(t.value, c.admin_levels);
  } else if (KeyIs(t.key, "DefaultAccount", 8)) {
    AddToList(t.value, c.default_accounts);
  } else if (KeyIs(t.key, "Format", 1)) {
    AddToList(t.value, c.format);
    return absl::OkStatus();
  } else if (KeyIs(t.key, "Accounts", 2) || KeyIs(t.key, "Acct", 4)) {
    AddToList(t.value, c.accounts);
  } else if (KeyIs(t.key, "Clusters", 1)) {
    AddToList(t.value, c.clusters);
  } else if (KeyIs(t.key, "Parent", 4)) {
    AddToList(t.value, c.parents);
  } else {
    return UnknownCondition(t.text);
  }
  c.any_condition = true;
  return absl::OkStatus();
}

absl::Status AssociationCondition(const Token& t, Command& c) {
  if (!t.has_value && (KeyIs(t.key, "WithDeleted", 5) || KeyIs(t.key, "WOPLimits", 4) ||
                       KeyIs(t.key, "WOLimits", 3) || KeyIs(t.key, "WOPInfo", 4))) {
  } else if (t.has_value && KeyIs(t.key, "Format", 1)) {
    AddToList(t.value, c.format);
    return absl::OkStatus();
  } else if (t.has_value && (KeyIs(t.key, "Accounts", 2) || KeyIs(t.key, "Acct", 4))) {
    AddToList(t.value, c.accounts);
  } else if (t.has_value && KeyIs(t.key, "Clusters", 1)) {
    AddToList(t.value, c.clusters);
  } else if (t.has_value && KeyIs(t.key, "Parent", 4)) {
    AddToList(t.value, c.parents);
  } else if (t.has_value && KeyIs(t.key, "Users", 1)) {
    AddToList(t.value, c.users);
  } else {
    return UnknownCondition(t.text);
  }
  c.any_condition = true;
  return absl::OkStatus();
}

// `adding`: add's words (names, clusters and settings); else what follows "set" in modify.
absl::Status AccountSetting(const Token& t, bool adding, Command& c) {
  if (!t.has_value || KeyIs(t.key, "Accounts", 1) || KeyIs(t.key, "Names", 1) ||
      KeyIs(t.key, "Acct", 4)) {
    if (!adding) {
      return SpecError(" Can't modify the name of an account");
    }
    AddToList(t.value, c.names);
    return absl::OkStatus();
  }
  if (KeyIs(t.key, "Clusters", 1)) {
    if (!adding) {
      return SpecError(" Can't modify the cluster of an account");
    }
    AddToList(t.value, c.clusters);
    return absl::OkStatus();
  }
  c.any_setting = true;
  if (KeyIs(t.key, "Description", 1)) {
    c.settings.emplace_back("Description", absl::AsciiStrToLower(StripQuotes(t.value)));
    return absl::OkStatus();
  }
  if (KeyIs(t.key, "Organization", 1)) {
    c.settings.emplace_back("Organization", absl::AsciiStrToLower(StripQuotes(t.value)));
    return absl::OkStatus();
  }
  absl::StatusOr<bool> known = SetAssocRec(t.key, t.value, c);
  if (!known.ok()) {
    return known.status();
  }
  return *known ? absl::OkStatus() : UnknownOption(t.text);
}

absl::Status UserSetting(const Token& t, bool adding, Command& c) {
  if (adding && (!t.has_value || KeyIs(t.key, "Names", 1) || KeyIs(t.key, "Users", 1))) {
    AddToList(t.value, c.names);
    return absl::OkStatus();
  }
  if (adding && (KeyIs(t.key, "Accounts", 2) || KeyIs(t.key, "Acct", 4))) {
    AddToList(t.value, c.accounts);
    return absl::OkStatus();
  }
  if (adding && KeyIs(t.key, "Clusters", 1)) {
    AddToList(t.value, c.clusters);
    return absl::OkStatus();
  }
  if (!t.has_value || KeyIs(t.key, "Parent", 1)) {
    return UnknownOption(t.text);
  }
  c.any_setting = true;
  if (KeyIs(t.key, "AdminLevel", 2)) {
    std::optional<std::string> level = AdminLevelName(StripQuotes(t.value));
    if (!level) {
      return SpecError(absl::StrCat(" Unknown AdminLevel: ", StripQuotes(t.value)));
    }
    c.settings.emplace_back("AdminLevel", *level);
    return absl::OkStatus();
  }
  if (KeyIs(t.key, "DefaultAccount", 8)) {
    c.settings.emplace_back("DefaultAccount", absl::AsciiStrToLower(StripQuotes(t.value)));
    return absl::OkStatus();
  }
  absl::StatusOr<bool> known = SetAssocRec(t.key, t.value, c);
  if (!known.ok()) {
    return known.status();
  }
  return *known ? absl::OkStatus() : UnknownOption(t.text);
}

}  // namespace

// The words after the entity: conditions and settings, switched by "where" and "set".
absl::Status ReadSpecs(const std::vector<std::string>& words, size_t first, Command& c) {
  if (c.entity == Entity::kQos) {
    return ReadQosSpecs(words, first, c);
  }
  const bool modifying = c.verb == Verb::kModify;
  bool in_set = c.verb == Verb::kAdd;
  for (size_t i = first; i < words.size(); ++i) {
    const Token t = ParseToken(words[i]);
    if (!t.has_value && KeyIs(t.key, "Where", 5)) {
      in_set = c.verb == Verb::kAdd;
      continue;
    }
    if (!t.has_value && KeyIs(t.key, "Set", 3)) {
      in_set = modifying || c.verb == Verb::kAdd;
      continue;
    }
    absl::Status s;
    if (in_set) {
      s = c.entity == Entity::kAccount ? AccountSetting(t, !modifying, c)
                                       : UserSetting(t, !modifying, c);
    } else if (c.entity == Entity::kAccount) {
      s = AccountCondition(t, c);
    } else if (c.entity == Entity::kUser) {
      s = UserCondition(t, c);
    } else {
      s = AssociationCondition(t, c);
    }
    if (!s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace canopy::ctl::sacctmgr
