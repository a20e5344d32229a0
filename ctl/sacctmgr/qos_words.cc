// sacctmgr's QOS words (qos_words.h).
#include "ctl/sacctmgr/qos_words.h"

#include <cstdint>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/slurm/limit_values.h"
#include "common/slurm/time_format.h"
#include "ctl/sacctmgr/words.h"

namespace canopy::ctl::sacctmgr {
namespace {

absl::Status QosWordsError(absl::string_view text) { return absl::InvalidArgumentError(text); }

// qos_functions.c's lines; "SLURM_PRINT_VALUE" is what sacctmgr 22.05 prints.
absl::Status UnknownQosCondition(absl::string_view token) {
  return QosWordsError(absl::StrCat(" Unknown condition: ", token,
                                    "\n Use keyword 'set' to modify SLURM_PRINT_VALUE"));
}
absl::Status UnknownQosOption(absl::string_view token) {
  return QosWordsError(
      absl::StrCat(" Unknown option: ", token, "\n Use keyword 'where' to modify condition"));
}

enum class Kind {
  kDescription,
  kCount,        // get_uint: Priority, GraceTime, GrpJobs, MaxJobsPerUser
  kTres,         // a TRES limit
  kTresItem,     // a legacy one-TRES limit (GrpCPUs=8 is GrpTRES=cpu=8)
  kWall,         // MaxWall
  kPreempt,      // Preempt
  kPreemptMode,  // PreemptMode
  kNotServed,
};

struct QosKey {
  const char* name;  // what the key is a prefix of
  size_t min;
  Kind kind;
  const char* option = "";  // canopyd's option name
  const char* tres = "";    // kTresItem: the TRES
  const char* label = "";   // kCount: the name get_uint's error uses
};

// _set_rec's keys in its order (a key that is a prefix of a later one is tried first).
constexpr QosKey kKeys[] = {
    {"Description", 1, Kind::kDescription, "Description"},
    {"Flags", 2, Kind::kNotServed},
    {"GraceTime", 3, Kind::kCount, "GraceTime", "", "GraceTime"},
    {"GrpCPUMins", 7, Kind::kNotServed},
    {"GrpCPURunMins", 7, Kind::kNotServed},
    {"GrpCPUs", 7, Kind::kTresItem, "GrpTRES", "cpu"},
    {"GrpJobs", 4, Kind::kCount, "GrpJobs", "", "GrpJobs"},
    {"GrpJobsAccrue", 8, Kind::kNotServed},
    {"GrpMemory", 4, Kind::kTresItem, "GrpTRES", "mem"},
    {"GrpNodes", 4, Kind::kTresItem, "GrpTRES", "node"},
    {"GrpSubmitJobs", 4, Kind::kNotServed},
    {"GrpTRES", 7, Kind::kTres, "GrpTRES"},
    {"GrpTRESMins", 8, Kind::kNotServed},
    {"GrpTRESRunMins", 8, Kind::kNotServed},
    {"GrpWall", 4, Kind::kNotServed},
    {"LimitFactor", 6, Kind::kNotServed},
    {"MaxCPUMinsPerJob", 7, Kind::kNotServed},
    {"MaxCPUsPerJob", 7, Kind::kTresItem, "MaxTRESPerJob", "cpu"},
    {"MaxCPUsPerUser", 11, Kind::kTresItem, "MaxTRESPerUser", "cpu"},
    {"MaxCPUsPU", 9, Kind::kTresItem, "MaxTRESPerUser", "cpu"},
    {"MaxJobsAccruePerAccount", 17, Kind::kNotServed},
    {"MaxJobsAccruePA", 15, Kind::kNotServed},
    {"MaxJobsAccruePerUser", 17, Kind::kNotServed},
    {"MaxJobsAccruePU", 15, Kind::kNotServed},
    {"MaxJobsPerAccount", 11, Kind::kNotServed},
    {"MaxJobsPA", 9, Kind::kNotServed},
    {"MaxJobsPerUser", 4, Kind::kCount, "MaxJobsPerUser", "", "MaxJobsPU"},
    {"MaxJobsPU", 4, Kind::kCount, "MaxJobsPerUser", "", "MaxJobsPU"},
    {"MaxNodesPerJob", 4, Kind::kTresItem, "MaxTRESPerJob", "node"},
    {"MaxNodesPerUser", 8, Kind::kTresItem, "MaxTRESPerUser", "node"},
    {"MaxNodesPU", 8, Kind::kTresItem, "MaxTRESPerUser", "node"},
    {"MaxSubmitJobsPerAccount", 17, Kind::kNotServed},
    {"MaxSubmitJobsPA", 15, Kind::kNotServed},
    {"MaxSubmitJobsPerUser", 4, Kind::kNotServed},
    {"MaxSubmitJobsPU", 4, Kind::kNotServed},
    {"MaxTRESPerAccount", 11, Kind::kNotServed},
    {"MaxTRESPA", 9, Kind::kNotServed},
    {"MaxTRESPerJob", 7, Kind::kTres, "MaxTRESPerJob"},
    {"MaxTRESPerNode", 11, Kind::kNotServed},
    {"MaxTRESPerUser", 11, Kind::kTres, "MaxTRESPerUser"},
    {"MaxTRESPU", 9, Kind::kTres, "MaxTRESPerUser"},
    {"MaxTRESMinsPerJob", 8, Kind::kNotServed},
    {"MaxTRESRunMinsPA", 16, Kind::kNotServed},
    {"MaxTRESRunMinsPU", 8, Kind::kNotServed},
    {"MaxWallDurationPerJob", 4, Kind::kWall, "MaxWall"},
    {"MinCPUsPerJob", 7, Kind::kNotServed},
    {"MinPrioThresh", 4, Kind::kNotServed},
    {"MinTRESPerJob", 7, Kind::kNotServed},
    {"PreemptMode", 8, Kind::kPreemptMode, "PreemptMode"},
    {"Preempt", 7, Kind::kPreempt, "Preempt"},
    {"PreemptExemptTime", 8, Kind::kNotServed},
    {"Priority", 3, Kind::kCount, "Priority", "", "Priority"},
    {"RawUsage", 7, Kind::kNotServed},
    {"UsageFactor", 6, Kind::kNotServed},
    {"UsageThreshold", 6, Kind::kNotServed},
};

constexpr char kServed[] =
    "Description, Priority, GraceTime, GrpJobs, GrpTRES, MaxJobsPerUser, MaxTRESPerJob, "
    "MaxTRESPerUser, MaxWall, Preempt, PreemptMode";

// get_uint: strtol's leading number ("12abc" is 12); none at all is an error; a negative number
// clears the limit. Returns the number as text, "-1" for a clear.
absl::StatusOr<std::string> Count(const QosKey& key, const std::string& value) {
  char* end = nullptr;
  const long long n = std::strtoll(value.c_str(), &end, 10);
  if (n == 0 && end != nullptr && *end != '\0') {
    return QosWordsError(
        absl::StrCat("sacctmgr: error: Invalid value for ", key.label, " (", value, ")"));
  }
  if (n < 0) {
    return std::string("-1");
  }
  return absl::StrCat(n);
}

// "+a,+b" for Preempt+=a,b.
std::string SignedItems(const std::string& value, char sign) {
  std::vector<std::string> items;
  for (absl::string_view item : absl::StrSplit(value, ',', absl::SkipWhitespace())) {
    items.push_back(absl::StrCat(std::string(1, sign), absl::StripAsciiWhitespace(item)));
  }
  return absl::StrJoin(items, ",");
}

// The option `t` sets, checked, in canopyd's spelling.
absl::Status Setting(const Token& t, Command& c) {
  const QosKey* key = nullptr;
  for (const QosKey& k : kKeys) {
    if (KeyIs(t.key, k.name, k.min)) {
      key = &k;
      break;
    }
  }
  if (key == nullptr) {
    return UnknownQosOption(t.text);
  }
  const std::string value = StripQuotes(t.value);
  std::string out = value;
  switch (key->kind) {
    case Kind::kNotServed:
      return absl::UnimplementedError(absl::StrCat("sacctmgr: error: QOS option '", key->name,
                                                   "' is not served by Canopy (served: ", kServed,
                                                   ")"));
    case Kind::kDescription:
      out = absl::AsciiStrToLower(value);
      break;
    case Kind::kCount: {
      absl::StatusOr<std::string> n = Count(*key, value);
      if (!n.ok()) {
        return n.status();
      }
      // canopyd's Priority and GraceTime have no "unset": clearing them sets the default.
      out = *n == "-1" && key->option != std::string("GrpJobs") &&
                    key->option != std::string("MaxJobsPerUser")
                ? "0"
                : *n;
      break;
    }
    case Kind::kTresItem: {
      absl::StatusOr<std::string> n = Count(*key, value);
      if (!n.ok()) {
        return n.status();
      }
      out = absl::StrCat(key->tres, "=", *n);
      break;
    }
    case Kind::kTres:
      if (absl::StatusOr<slurm::TresLimits> tres = slurm::ParseTresLimits(value); !tres.ok()) {
        return QosWordsError(
            absl::StrCat("sacctmgr: error: ", key->option, ": ", tres.status().message()));
      }
      break;
    case Kind::kWall:
      if (value != "-1" && !slurm::ParseSlurmDuration(value).ok()) {
        return QosWordsError(absl::StrCat(" Bad MaxWall time format: ", t.text));
      }
      break;
    case Kind::kPreemptMode:
      if (!value.empty() && absl::AsciiStrToLower(value) != "cluster") {
        absl::StatusOr<slurm::PreemptMode> mode = slurm::ParsePreemptMode(value);
        if (!mode.ok()) {
          const std::string upper = absl::AsciiStrToUpper(value);
          // GANG and SUSPEND are Slurm's; Canopy says why it refuses them.
          if (upper.find("GANG") != std::string::npos ||
              upper.find("SUSPEND") != std::string::npos) {
            return QosWordsError(absl::StrCat("sacctmgr: error: ", mode.status().message()));
          }
          return QosWordsError(absl::StrCat(" Bad Preempt Mode given: ", t.text));
        }
        out = std::string(slurm::PreemptModeName(*mode));
      }
      break;
    case Kind::kPreempt: {
      const size_t eq = t.text.find('=');
      const char sign = eq > 0 && eq != std::string::npos ? t.text[eq - 1] : '\0';
      out = absl::AsciiStrToLower(value);
      if (sign == '+' || sign == '-') {
        out = SignedItems(out, sign);
      }
      break;
    }
  }
  c.settings.emplace_back(key->option, out);
  c.any_setting = true;
  return absl::OkStatus();
}

// _set_rec: names (bare words, Name=) when adding, else settings.
absl::Status Record(const Token& t, Command& c) {
  if (!t.has_value || KeyIs(t.key, "Name", 1)) {
    if (c.verb != Verb::kAdd) {
      return QosWordsError(" Can't modify the name of a QOS");
    }
    AddToList(t.value, c.names);
    return absl::OkStatus();
  }
  return Setting(t, c);
}

// _set_cond.
absl::Status Condition(const Token& t, Command& c) {
  if (!t.has_value && KeyIs(t.key, "WithDeleted", 5)) {
    return absl::OkStatus();  // Canopy keeps no deleted QOS
  }
  if (!t.has_value || KeyIs(t.key, "Names", 1) || KeyIs(t.key, "QOSLevel", 1)) {
    AddToList(t.value, c.names);
  } else if (KeyIs(t.key, "Clusters", 1)) {
    // sacctmgr uses it only to reset usage; QOS belong to canopyd's one cluster.
    return absl::OkStatus();
  } else if (KeyIs(t.key, "Descriptions", 1)) {
    AddToList(t.value, c.descriptions);
  } else if (KeyIs(t.key, "Format", 1)) {
    AddToList(t.value, c.format);
    return absl::OkStatus();  // not a condition
  } else if (KeyIs(t.key, "Ids", 1)) {
    return absl::UnimplementedError(absl::StrCat("sacctmgr: error: Canopy's QOS have no ids (",
                                                 t.text, "); name them with Names="));
  } else if (KeyIs(t.key, "PreemptMode", 8)) {
    for (absl::string_view m : absl::StrSplit(StripQuotes(t.value), ',', absl::SkipEmpty())) {
      const std::string mode = absl::AsciiStrToLower(m);
      if (mode != "cluster" && !slurm::ParsePreemptMode(mode).ok()) {
        return QosWordsError(absl::StrCat(" Bad Preempt Mode given: ", t.text));
      }
      c.preempt_modes.push_back(mode);
    }
  } else {
    return UnknownQosCondition(t.text);
  }
  c.any_condition = true;
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadQosSpecs(const std::vector<std::string>& words, size_t first, Command& c) {
  bool in_set = c.verb == Verb::kAdd;
  for (size_t i = first; i < words.size(); ++i) {
    const Token t = ParseToken(words[i]);
    if (!t.has_value && KeyIs(t.key, "Where", 5)) {
      in_set = c.verb == Verb::kAdd;
      continue;
    }
    if (!t.has_value && KeyIs(t.key, "Set", 3)) {
      in_set = c.verb == Verb::kAdd || c.verb == Verb::kModify;
      continue;
    }
    if (absl::Status s = in_set ? Record(t, c) : Condition(t, c); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace canopy::ctl::sacctmgr
