#include "ctl/sacctmgr/command.h"

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/slurm/getopt.h"
#include "ctl/sacctmgr/specs.h"
#include "ctl/sacctmgr/words.h"

namespace canopy::ctl::sacctmgr {
namespace {

enum class Opt {
  kHelp,
  kImmediate,
  kNoHeader,
  kOneLiner,
  kParsable,
  kParsable2,
  kQuiet,
  kReadonly,
  kAssociations,
  kVerbose,
  kVersion
};

using slurm::ArgKind;

// Slurm 22.05's table (sacctmgr/sacctmgr.c).
constexpr slurm::OptionSpec kOptions[] = {
    {"help", 'h', ArgKind::kNone, Opt::kHelp},
    {"usage", '\0', ArgKind::kNone, Opt::kHelp},
    {"immediate", 'i', ArgKind::kNone, Opt::kImmediate},
    {"noheader", 'n', ArgKind::kNone, Opt::kNoHeader},
    {"oneliner", 'o', ArgKind::kNone, Opt::kOneLiner},
    {"parsable", 'p', ArgKind::kNone, Opt::kParsable},
    {"parsable2", 'P', ArgKind::kNone, Opt::kParsable2},
    {"quiet", 'Q', ArgKind::kNone, Opt::kQuiet},
    {"readonly", 'r', ArgKind::kNone, Opt::kReadonly},
    {"associations", 's', ArgKind::kNone, Opt::kAssociations},
    {"verbose", 'v', ArgKind::kNone, Opt::kVerbose},
    {"version", 'V', ArgKind::kNone, Opt::kVersion},
};
constexpr slurm::OptionTable kTable{"sacctmgr", slurm::Ordering::kPermute, kOptions};

absl::Status CommandError(absl::string_view text) { return absl::InvalidArgumentError(text); }

absl::Status NotServed(absl::string_view keyword) {
  return absl::UnimplementedError(
      absl::StrCat("sacctmgr: error: '", keyword,
                   "' is not served by Canopy (accounts, users, associations and QOS are)"));
}

absl::Status ReadDumpOrLoad(const std::vector<std::string>& words, Command& c) {
  for (size_t i = 1; i < words.size(); ++i) {
    const Token t = ParseToken(words[i]);
    const bool dumping = c.verb == Verb::kDump;
    if (!dumping && !t.has_value && KeyIs(t.key, "Clean", 3)) {
      // Canopy's load always replaces the tree, as "clean" does.
    } else if (dumping && (!t.has_value || KeyIs(t.key, "Cluster", 1))) {
      if (!c.cluster.empty()) {
        return CommandError(
            absl::StrCat(" Can only do one cluster at a time.  Already doing ", c.cluster));
      }
      c.cluster = StripQuotes(t.value);
    } else if (!dumping && (!t.has_value || KeyIs(t.key, "File", 1))) {
      c.file = StripQuotes(t.value);
    } else if (dumping && KeyIs(t.key, "File", 1)) {
      if (!c.file.empty()) {
        return CommandError(absl::StrCat(" File name already set to ", c.file));
      }
      c.file = StripQuotes(t.value);
    } else if (!dumping && KeyIs(t.key, "Cluster", 1)) {
      c.cluster = StripQuotes(t.value);
    } else {
      return CommandError(absl::StrCat(" Unknown option: ", t.text));
    }
  }
  if (c.verb == Verb::kDump && c.cluster.empty()) {
    return CommandError(" We need a cluster to dump.");
  }
  if (c.verb == Verb::kLoad && c.file.empty()) {
    return CommandError(" No filename given.");
  }
  return absl::OkStatus();
}

absl::StatusOr<Command> ReadCommand(const std::vector<std::string>& words) {
  Command c;
  const std::string& verb = words[0];
  if (WordIs(verb, "associations", 3)) {
    return NotServed(verb);
  } else if (WordIs(verb, "dump", 3)) {
    c.verb = Verb::kDump;
  } else if (WordIs(verb, "help", 2)) {
    c.verb = Verb::kHelp;
    return c;
  } else if (WordIs(verb, "load", 2)) {
    c.verb = Verb::kLoad;
  } else if (WordIs(verb, "add", 3) || WordIs(verb, "create", 3)) {
    c.verb = Verb::kAdd;
  } else if (WordIs(verb, "show", 3) || WordIs(verb, "list", 3)) {
    c.verb = Verb::kList;
  } else if (WordIs(verb, "modify", 1) || WordIs(verb, "update", 1)) {
    c.verb = Verb::kModify;
  } else if (WordIs(verb, "delete", 3) || WordIs(verb, "remove", 3)) {
    c.verb = Verb::kDelete;
  } else if (WordIs(verb, "version", 4)) {
    c.verb = Verb::kVersion;
    return c;
  } else if (WordIs(verb, "archive", 3) || WordIs(verb, "reconfigure", 4) ||
             WordIs(verb, "rollup", 2) || WordIs(verb, "shutdown", 4) ||
             WordIs(verb, "oneliner", 1) || WordIs(verb, "quiet", 4) ||
             WordIs(verb, "verbose", 4) || WordIs(verb, "readonly", 4)) {
    return NotServed(verb);
  } else {
    return CommandError(absl::StrCat("invalid keyword: ", verb));
  }
  if (c.verb == Verb::kDump || c.verb == Verb::kLoad) {
    if (absl::Status s = ReadDumpOrLoad(words, c); !s.ok()) {
      return s;
    }
    return c;
  }
  absl::StatusOr<Entity> entity = ReadEntity(c.verb, words.size() > 1 ? words[1] : "");
  if (!entity.ok()) {
    return entity.status();
  }
  c.entity = *entity;
  if (absl::Status s = ReadSpecs(words, 2, c); !s.ok()) {
    return s;
  }
  return c;
}

}  // namespace

absl::StatusOr<Invocation> ParseSacctmgrArgs(const std::vector<std::string>& args) {
  Invocation inv;
  GlobalOptions& o = inv.options;
  absl::StatusOr<std::vector<std::string>> words = slurm::ParseCommandLine(
      kTable, args, [&](const slurm::OptionSpec& option, std::optional<absl::string_view>) {
        switch (option.IdAs<Opt>()) {
          case Opt::kHelp:
            o.help = true;
            break;
          case Opt::kImmediate:
            o.immediate = true;
            break;
          case Opt::kNoHeader:
            o.no_header = true;
            break;
          case Opt::kParsable:
            o.mode = output::FieldsMode::kParsable;
            break;
          case Opt::kParsable2:
            o.mode = output::FieldsMode::kParsable2;
            break;
          case Opt::kQuiet:
            o.quiet = true;
            break;
          case Opt::kReadonly:
            o.readonly = true;
            break;
          case Opt::kAssociations:
            o.with_assoc = true;
            break;
          case Opt::kVersion:
            inv.command.verb = Verb::kVersion;
            break;
          case Opt::kOneLiner:
          case Opt::kVerbose:
            break;
        }
        return absl::OkStatus();
      });
  if (!words.ok()) {
    // getopt prints its line after the program name; the hint stands alone.
    return CommandError(absl::StrCat("sacctmgr: ", words.status().message()));
  }
  if (o.help || inv.command.verb == Verb::kVersion) {
    return inv;
  }
  if (words->empty()) {
    return absl::UnimplementedError(
        "sacctmgr: error: Canopy's sacctmgr takes its command on the command line (no "
        "interactive mode)");
  }
  absl::StatusOr<Command> command = ReadCommand(*words);
  if (!command.ok()) {
    return command.status();
  }
  inv.command = *std::move(command);
  inv.command.with_assoc = inv.command.with_assoc || o.with_assoc;
  return inv;
}

const std::string* Setting(const Command& command, absl::string_view key) {
  for (auto it = command.settings.rbegin(); it != command.settings.rend(); ++it) {
    if (absl::EqualsIgnoreCase(it->first, key)) {
      return &it->second;
    }
  }
  return nullptr;
}

}  // namespace canopy::ctl::sacctmgr
