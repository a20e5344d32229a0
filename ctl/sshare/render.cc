#include "ctl/sshare/render.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "ctl/output/print_fields.h"

namespace canopy::ctl::sshare {
namespace {

using output::FieldCell;

enum class Field {
  kAccount,
  kCluster,
  kEffectvUsage,
  kFairShare,
  kLevelFs,
  kId,
  kNormShares,
  kNormUsage,
  kPartition,
  kRawShares,
  kRawUsage,
  kUser,
  kGrpTresMins,
  kTresRunMins,
};

struct FieldDef {
  const char* name;
  int width;  // Slurm's field->len
  Field field;
};

// sshare/process.c's fields[], in its order: a -o name is the first one it is a prefix of.
constexpr FieldDef kFields[] = {
    {"Account", -20, Field::kAccount},          {"Cluster", 10, Field::kCluster},
    {"EffectvUsage", 13, Field::kEffectvUsage}, {"FairShare", 10, Field::kFairShare},
    {"LevelFS", 10, Field::kLevelFs},           {"ID", 6, Field::kId},
    {"NormShares", 11, Field::kNormShares},     {"NormUsage", 11, Field::kNormUsage},
    {"Partition", 12, Field::kPartition},       {"RawShares", 10, Field::kRawShares},
    {"RawUsage", 11, Field::kRawUsage},         {"User", 10, Field::kUser},
    {"GrpTRESMins", 30, Field::kGrpTresMins},   {"TRESRunMins", 30, Field::kTresRunMins},
};

// What Slurm prints for running TRES-minutes of an association without running jobs, with the
// default TRES list; Canopy has no such counter, so every row gets it.
constexpr char kZeroTres[] = "cpu=0,mem=0,energy=0,node=0,billing=0,fs/disk=0,vmem=0,pages=0";

std::string DefaultFormat(bool long_format, bool fair_tree) {
  if (!long_format) {
    return "A,User,RawShares,NormShares,RawUsage,Eff,Fairshare";
  }
  return fair_tree ? "A,User,RawShares,NormShares,RawUsage,NormUsage,Eff,Fairshare,LevelFS,"
                     "GrpTRESMins,TRESRunMins"
                   : "A,User,RawShares,NormShares,RawUsage,NormUsage,Eff,Fairshare,GrpTRESMins,"
                     "TRESRunMins";
}

struct Column {
  Field field;
  output::FieldColumn column;
};

absl::StatusOr<std::vector<Column>> ParseFormat(absl::string_view format) {
  // slurm_addto_char_list: empty items dropped, repeats (any case) kept once.
  std::vector<std::string> items;
  for (absl::string_view part : absl::StrSplit(format, ',', absl::SkipEmpty())) {
    const bool seen = std::any_of(items.begin(), items.end(), [&](const std::string& s) {
      return absl::EqualsIgnoreCase(s, part);
    });
    if (!seen) {
      items.emplace_back(part);
    }
  }
  std::vector<Column> columns;
  for (const std::string& item : items) {
    std::string name = item;
    int width = 0;
    if (const size_t pct = item.find('%'); pct != std::string::npos) {
      name = item.substr(0, pct);
      // atoi: leading digits, 0 when none.
      const std::string digits = item.substr(pct + 1);
      (void)absl::SimpleAtoi(digits.substr(0, digits.find_first_not_of("0123456789")), &width);
    }
    const FieldDef* def = nullptr;
    for (const FieldDef& f : kFields) {
      if (absl::StartsWithIgnoreCase(f.name, name)) {
        def = &f;
        break;
      }
    }
    if (def == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("Invalid field requested: \"", name, "\""));
    }
    columns.push_back({def->field, {def->name, width != 0 ? width : def->width}});
  }
  return columns;
}

bool IsRoot(const canopy::v1::ShareRow& row) { return row.depth() == 0 && row.user().empty(); }

// `indent`: the row's place in the tree printed (ShownTree).
FieldCell Value(Field field, const canopy::v1::ShareRow& row, bool users_only, int indent) {
  const bool root = IsRoot(row);
  switch (field) {
    case Field::kAccount:
      // Indented as slurmdb_tree_name_get does; -U prints the bare name.
      return FieldCell::Text(users_only ? row.account()
                                        : std::string(std::max(0, indent), ' ') + row.account());
    case Field::kUser:
      return FieldCell::Text(row.user());
    case Field::kRawShares:
      if (root) {
        return FieldCell::Blank();
      }
      return row.raw_shares() < 0 ? FieldCell::Text("parent")
                                  : FieldCell::Number(static_cast<uint64_t>(row.raw_shares()));
    case Field::kNormShares:
      return FieldCell::Double(row.norm_shares());
    case Field::kRawUsage:
      return FieldCell::Number(static_cast<uint64_t>(std::max(0.0, std::floor(row.raw_usage()))));
    case Field::kNormUsage:
      return root ? FieldCell::Blank() : FieldCell::Double(row.norm_usage());
    case Field::kEffectvUsage:
      return FieldCell::Double(row.effective_usage());
    case Field::kFairShare:
      return row.has_fairshare() ? FieldCell::Double(row.fairshare()) : FieldCell::Blank();
    case Field::kLevelFs:
      return root || row.raw_shares() < 0 ? FieldCell::Blank() : FieldCell::Double(row.level_fs());
    case Field::kTresRunMins:
      return FieldCell::Text(kZeroTres);
    case Field::kCluster:
    case Field::kId:
    case Field::kPartition:
    case Field::kGrpTresMins:
      return FieldCell::Blank();
  }
  return FieldCell::Blank();
}

bool Contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

bool Selected(const SshareOptions& o, const canopy::v1::ShareRow& row, absl::string_view caller) {
  if (o.users_only && row.user().empty()) {
    return false;
  }
  if (!o.accounts.empty() && !Contains(o.accounts, absl::AsciiStrToLower(row.account()))) {
    return false;
  }
  if (row.user().empty() || o.all_users) {
    return true;
  }
  if (!o.users.empty()) {
    return Contains(o.users, row.user());
  }
  // sshare asks for the caller's own user unless it cannot name the caller.
  return caller.empty() || row.user() == caller;
}

}  // namespace

absl::StatusOr<std::string> RenderSshare(const SshareOptions& options,
                                         const canopy::v1::GetSharesResponse& shares,
                                         absl::string_view caller) {
  absl::StatusOr<std::vector<Column>> columns =
      ParseFormat(options.format.empty() ? DefaultFormat(options.long_format, shares.fair_tree())
                                         : options.format);
  if (!columns.ok()) {
    return columns.status();
  }
  std::vector<output::FieldColumn> header;
  for (const Column& c : *columns) {
    header.push_back(c.column);
  }
  const output::FieldsPrinter printer(header, options.mode, !options.no_header);
  // Slurm builds its tree from the associations it shows: a row is one space deeper than its
  // parent account when that account is shown too, else at the left edge. So with -A the
  // accounts named head their own trees ("vision", then " vision|root"). Rows come in tree
  // order, each account before what is under it: `shown[d]` is the indentation of the last
  // account at depth d, or -1 where it was not shown.
  std::vector<int> shown;
  std::string text = printer.Header();
  for (const canopy::v1::ShareRow& row : shares.rows()) {
    const int depth = std::max(0, row.depth());
    const int parent = depth > 0 && depth <= static_cast<int>(shown.size()) ? shown[depth - 1] : -1;
    const int indent = parent >= 0 ? parent + 1 : 0;
    const bool selected = Selected(options, row, caller);
    if (row.user().empty()) {
      shown.resize(depth + 1);
      shown[depth] = selected ? indent : -1;
    }
    if (!selected) {
      continue;
    }
    std::vector<FieldCell> cells;
    for (const Column& c : *columns) {
      cells.push_back(Value(c.field, row, options.users_only, indent));
    }
    text += printer.Row(cells);
  }
  return text;
}

std::string RenderSshareFieldNames() {
  std::string text;
  for (size_t i = 0; i < std::size(kFields); ++i) {
    if ((i & 3) != 0) {
      text += " ";
    } else if (i != 0) {
      text += "\n";
    }
    text += absl::StrFormat("%-17s", kFields[i].name);
  }
  return text + "\n";
}

}  // namespace canopy::ctl::sshare
