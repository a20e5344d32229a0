// The scheduling-policy sections of Canopy's YAML config (yaml_policy.h).
#include "common/config/yaml_policy.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/slurm/sacctmgr_file.h"

namespace canopy::config::internal {
namespace {

using Record = slurm::FlatFileRecord;

bool IsScalarNode(const YAML::Node& n) { return n.IsDefined() && n.IsScalar(); }

// The text ApplySchedulingKey parses: a scalar as written; a list as its items joined with ','
// (`flags: [NO_FAIR_TREE, MAX_TRES]`); a mapping as key=value items (`parameters: {bf_window:
// 2880}`), a key without a value as the bare key.
absl::StatusOr<std::string> PolicyText(const YamlReader& reader, const YamlValue& value) {
  const YAML::Node& n = value.node;
  if (IsScalarNode(n)) {
    return n.Scalar();
  }
  std::vector<std::string> items;
  if (n.IsDefined() && n.IsSequence()) {
    absl::Status s = reader.ForEachElement(value, [&](const YamlValue& e) -> absl::Status {
      absl::StatusOr<std::string> item = reader.String(e);
      if (!item.ok()) {
        return item.status();
      }
      items.push_back(*std::move(item));
      return absl::OkStatus();
    });
    if (!s.ok()) {
      return s;
    }
    return absl::StrJoin(items, ",");
  }
  if (n.IsDefined() && n.IsMap()) {
    absl::Status s =
        reader.ForEachEntry(value, [&](const std::string& k, const YamlValue& v) -> absl::Status {
          if (!v.node.IsDefined() || v.node.IsNull()) {
            items.push_back(k);
            return absl::OkStatus();
          }
          absl::StatusOr<std::string> text = reader.String(v);
          if (!text.ok()) {
            return text.status();
          }
          items.push_back(absl::StrCat(k, "=", *text));
          return absl::OkStatus();
        });
    if (!s.ok()) {
      return s;
    }
    return absl::StrJoin(items, ",");
  }
  return reader.Expected(value, "a value, a list or a mapping");
}

// Applies `section.key` (or a top-level `key` when section is empty).
absl::Status ApplyKey(const YamlReader& reader, absl::string_view section, const std::string& key,
                      const YamlValue& value, SchedulingPolicy& policy, UnusedKeys& unused) {
  absl::StatusOr<std::string> text = PolicyText(reader, value);
  if (!text.ok()) {
    return text.status();
  }
  absl::StatusOr<bool> applied =
      ApplySchedulingKey(NormalizeSchedulingKey(absl::StrCat(section, key)), *text, '"', policy);
  if (!applied.ok()) {
    return reader.Error(value, applied.status().message());
  }
  if (!*applied) {
    unused.Add(section.empty() ? key : absl::StrCat(section, ".", key));
  }
  return absl::OkStatus();
}

// `fairshare: 70` or `fairshare: parent`.
absl::Status ReadShares(const YamlReader& reader, const YamlValue& value, Record& record) {
  absl::StatusOr<std::string> text = reader.String(value);
  if (!text.ok()) {
    return text.status();
  }
  if (absl::EqualsIgnoreCase(*text, "parent")) {
    record.options.emplace_back("Fairshare", "parent");
    return absl::OkStatus();
  }
  absl::StatusOr<int64_t> shares =
      reader.Int(value, 0, int64_t{1} << 31, "a number of shares (0 or more) or parent");
  if (!shares.ok()) {
    return shares.status();
  }
  record.options.emplace_back("Fairshare", absl::StrCat(*shares));
  return absl::OkStatus();
}

// A text option (`description: ...`) as the flat file's Key=value.
absl::Status ReadText(const YamlReader& reader, const YamlValue& value, absl::string_view option,
                      Record& record) {
  absl::StatusOr<std::string> text = reader.String(value);
  if (!text.ok()) {
    return text.status();
  }
  record.options.emplace_back(std::string(option), *std::move(text));
  return absl::OkStatus();
}

// Association limits and QOS as the flat file's option names (`grp_tres: gres/gpu=64` is
// GrpTRES=gres/gpu=64, `qos: [normal, high]` is QOS=normal,high); "" for other keys. Their
// values are checked with the tree, as those of a flat file (scheduler/limits).
absl::string_view LimitOption(absl::string_view key) {
  if (key == "grp_tres") return "GrpTRES";
  if (key == "grp_jobs") return "GrpJobs";
  if (key == "max_jobs") return "MaxJobs";
  if (key == "max_tres_per_job") return "MaxTRESPerJob";
  if (key == "max_wall") return "MaxWall";
  if (key == "qos") return "QOS";
  if (key == "default_qos") return "DefaultQOS";
  return "";
}

absl::Status ReadLimit(const YamlReader& reader, const YamlValue& value, absl::string_view option,
                       Record& record) {
  absl::StatusOr<std::string> text = PolicyText(reader, value);
  if (!text.ok()) {
    return text.status();
  }
  record.options.emplace_back(std::string(option), *std::move(text));
  return absl::OkStatus();
}

// One element of an account's `users:` list: a name, or {name, fairshare, default_account, and
// the limits of LimitOption}.
absl::StatusOr<Record> ReadUser(const YamlReader& reader, const YamlValue& element,
                                UnusedKeys& unused) {
  Record user;
  user.kind = Record::Kind::kUser;
  user.line = element.line;
  if (IsScalarNode(element.node)) {
    user.name = element.node.Scalar();
  } else {
    absl::Status s = reader.ForEachEntry(
        element, [&](const std::string& key, const YamlValue& value) -> absl::Status {
          if (key == "name") {
            absl::StatusOr<std::string> name = reader.String(value);
            if (!name.ok()) {
              return name.status();
            }
            user.name = *std::move(name);
            return absl::OkStatus();
          }
          if (key == "fairshare") return ReadShares(reader, value, user);
          if (key == "default_account") return ReadText(reader, value, "DefaultAccount", user);
          if (absl::string_view o = LimitOption(key); !o.empty()) {
            return ReadLimit(reader, value, o, user);
          }
          unused.Add(absl::StrCat("accounts.users.", key));
          return absl::OkStatus();
        });
    if (!s.ok()) {
      return s;
    }
  }
  if (user.name.empty()) {
    return reader.Error(element, "name: required (a user name)");
  }
  return user;
}

// One `accounts:` entry as flat-file records: Parent, Account, then (if it has users) Parent
// again and its User lines.
absl::Status ReadAccount(const YamlReader& reader, const YamlValue& entry,
                         std::vector<Record>& records, UnusedKeys& unused) {
  Record account;
  account.kind = Record::Kind::kAccount;
  account.line = entry.line;
  std::string parent = "root";
  std::vector<Record> users;
  absl::Status s = reader.ForEachEntry(
      entry, [&](const std::string& key, const YamlValue& value) -> absl::Status {
        if (key == "name" || key == "parent") {
          absl::StatusOr<std::string> text = reader.String(value);
          if (!text.ok()) {
            return text.status();
          }
          if (text->empty()) {
            return reader.Expected(value, "an account name");
          }
          (key == "name" ? account.name : parent) = *std::move(text);
          return absl::OkStatus();
        }
        if (key == "fairshare") return ReadShares(reader, value, account);
        if (key == "description") return ReadText(reader, value, "Description", account);
        if (key == "organization") return ReadText(reader, value, "Organization", account);
        if (absl::string_view o = LimitOption(key); !o.empty()) {
          return ReadLimit(reader, value, o, account);
        }
        if (key == "users") {
          return reader.ForEachElement(value, [&](const YamlValue& element) -> absl::Status {
            absl::StatusOr<Record> user = ReadUser(reader, element, unused);
            if (!user.ok()) {
              return user.status();
            }
            users.push_back(*std::move(user));
            return absl::OkStatus();
          });
        }
        unused.Add(absl::StrCat("accounts.", key));
        return absl::OkStatus();
      });
  if (!s.ok()) {
    return s;
  }
  if (account.name.empty()) {
    return reader.Error(entry, "name: required (an account name such as vision)");
  }
  records.push_back(Record{Record::Kind::kParent, parent, {}, entry.line});
  records.push_back(std::move(account));
  if (!users.empty()) {
    records.push_back(Record{Record::Kind::kParent, records.back().name, {}, entry.line});
    for (Record& user : users) {
      records.push_back(std::move(user));
    }
  }
  return absl::OkStatus();
}

absl::Status ReadAccountsFile(const YamlReader& reader, const std::string& origin,
                              const YamlValue& value, AccountingConfig& accounting) {
  absl::StatusOr<std::string> name = reader.String(value);
  if (!name.ok()) {
    return name.status();
  }
  if (name->empty()) {
    return reader.Expected(value, "the path of a sacctmgr dump file");
  }
  const std::string path = SiblingPath(origin, *name);
  absl::StatusOr<std::string> text = ReadConfigFile(path);
  if (!text.ok()) {
    return absl::Status(text.status().code(),
                        absl::StrCat(reader.Where(value), ": ", text.status().message()));
  }
  absl::StatusOr<std::vector<Record>> records = slurm::ParseFlatFile(*text, path);
  if (!records.ok()) {
    return records.status();
  }
  accounting.accounts = *std::move(records);
  accounting.accounts_origin = path;
  return absl::OkStatus();
}

}  // namespace

bool IsPolicySection(absl::string_view key) {
  return key == "priority" || key == "scheduler" || key == "accounting" || key == "preempt" ||
         key == "fairshare_dampening_factor" || key == "accounts" || key == "accounts_file";
}

absl::Status ReadPolicyEntry(const YamlReader& reader, const std::string& origin,
                             const std::string& key, const YamlValue& value,
                             SchedulingPolicy& policy, UnusedKeys& unused) {
  AccountingConfig& accounting = policy.accounting;
  if (key == "accounts" || key == "accounts_file") {
    if (!accounting.accounts_origin.empty()) {
      return reader.Error(value, "give either accounts (inline) or accounts_file, not both");
    }
    if (key == "accounts_file") {
      return ReadAccountsFile(reader, origin, value, accounting);
    }
    std::vector<Record> records;
    absl::Status s = reader.ForEachElement(
        value, [&](const YamlValue& entry) { return ReadAccount(reader, entry, records, unused); });
    if (!s.ok()) {
      return s;
    }
    accounting.accounts = std::move(records);
    accounting.accounts_origin = origin;
    return absl::OkStatus();
  }
  if (key == "fairshare_dampening_factor") {
    return ApplyKey(reader, "", key, value, policy, unused);
  }
  // priority:, scheduler:, accounting:, preempt: — each key is its slurm.conf key without the
  // section's prefix (priority.weight_age is PriorityWeightAge).
  return reader.ForEachEntry(value, [&](const std::string& k, const YamlValue& v) {
    return ApplyKey(reader, key, k, v, policy, unused);
  });
}

absl::StatusOr<bool> ReadPartitionPolicyKey(const YamlReader& reader, const std::string& key,
                                            const YamlValue& value, PartitionPolicy& policy) {
  const std::string normalized = NormalizeSchedulingKey(key);
  if (normalized != "tresbillingweights" && normalized != "priorityjobfactor" &&
      normalized != "prioritytier" && normalized != "allowaccounts" &&
      normalized != "preemptmode" && normalized != "gracetime") {
    return false;
  }
  absl::StatusOr<std::string> text = PolicyText(reader, value);
  if (!text.ok()) {
    return text.status();
  }
  absl::StatusOr<bool> applied = ApplyPartitionPolicyKey(normalized, *text, '"', policy);
  if (!applied.ok()) {
    return reader.Error(value, applied.status().message());
  }
  return applied;
}

}  // namespace canopy::config::internal
