#include "ctl/sshare/options.h"

#include <algorithm>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/slurm/getopt.h"

namespace canopy::ctl::sshare {
namespace {

enum class Opt {
  kAll,
  kAccounts,
  kHelpFormat,
  kNoHeader,
  kLong,
  kFormat,
  kParsable,
  kParsable2,
  kUsers,
  kUsersOnly,
  kHelp,
  kVersion,
};

using slurm::ArgKind;

// Slurm 22.05's table (sshare/sshare.c) for the options Canopy serves; "-h" is sshare's
// undocumented twin of -n.
constexpr slurm::OptionSpec kOptions[] = {
    {"accounts", 'A', ArgKind::kRequired, Opt::kAccounts},
    {"all", 'a', ArgKind::kNone, Opt::kAll},
    {"helpformat", 'e', ArgKind::kNone, Opt::kHelpFormat},
    {"long", 'l', ArgKind::kNone, Opt::kLong},
    {"noheader", 'n', ArgKind::kNone, Opt::kNoHeader},
    {"", 'h', ArgKind::kNone, Opt::kNoHeader},
    {"format", 'o', ArgKind::kRequired, Opt::kFormat},
    {"parsable", 'p', ArgKind::kNone, Opt::kParsable},
    {"parsable2", 'P', ArgKind::kNone, Opt::kParsable2},
    {"users", 'u', ArgKind::kRequired, Opt::kUsers},
    {"Users", 'U', ArgKind::kNone, Opt::kUsersOnly},
    {"help", '\0', ArgKind::kNone, Opt::kHelp},
    {"usage", '\0', ArgKind::kNone, Opt::kHelp},
    {"version", 'V', ArgKind::kNone, Opt::kVersion},
};
constexpr slurm::OptionTable kTable{"sshare", slurm::Ordering::kPermute, kOptions};

// slurm_addto_char_list: comma-separated, quotes dropped, duplicates once; account names are
// lower-cased (Slurm keeps them lower case), user names are not.
void AddToList(absl::string_view value, bool lower, std::vector<std::string>& list) {
  for (absl::string_view part : absl::StrSplit(value, ',', absl::SkipEmpty())) {
    std::string name(absl::StripAsciiWhitespace(part));
    name.erase(std::remove(name.begin(), name.end(), '"'), name.end());
    name.erase(std::remove(name.begin(), name.end(), '\''), name.end());
    if (lower) {
      absl::AsciiStrToLower(&name);
    }
    if (!name.empty() && std::find(list.begin(), list.end(), name) == list.end()) {
      list.push_back(name);
    }
  }
}

}  // namespace

absl::StatusOr<SshareOptions> ParseSshareArgs(const std::vector<std::string>& args) {
  SshareOptions o;
  absl::StatusOr<std::vector<std::string>> operands = slurm::ParseCommandLine(
      kTable, args, [&](const slurm::OptionSpec& option, std::optional<absl::string_view> value) {
        const absl::string_view v = value.value_or("");
        switch (option.IdAs<Opt>()) {
          case Opt::kAll:
            o.all_users = true;
            break;
          case Opt::kAccounts:
            AddToList(v, true, o.accounts);
            break;
          case Opt::kHelpFormat:
            o.help_format = true;
            break;
          case Opt::kNoHeader:
            o.no_header = true;
            break;
          case Opt::kLong:
            o.long_format = true;
            break;
          case Opt::kFormat:
            // sshare appends each -o to one list ("%s,").
            absl::StrAppend(&o.format, o.format.empty() ? "" : ",", v);
            break;
          case Opt::kParsable:
            o.mode = output::FieldsMode::kParsable;
            break;
          case Opt::kParsable2:
            o.mode = output::FieldsMode::kParsable2;
            break;
          case Opt::kUsers:
            if (v == "-1") {
              o.all_users = true;
            } else {
              o.all_users = false;
              AddToList(v, false, o.users);
            }
            break;
          case Opt::kUsersOnly:
            o.users_only = true;
            break;
          case Opt::kHelp:
            o.help = true;
            return slurm::StopAtInfoRequest();
          case Opt::kVersion:
            o.version = true;
            return slurm::StopAtInfoRequest();
        }
        return absl::OkStatus();
      });
  if (!operands.ok()) {
    if (slurm::StoppedAtInfoRequest(operands.status())) {
      return o;
    }
    return operands.status();
  }
  // -a wins over -u, as in sshare (it drops the user list).
  if (o.all_users) {
    o.users.clear();
  }
  return o;
}

std::string SshareUsage() {
  return "Usage:  sshare [OPTION]                                                    \n"
         "  Valid OPTIONs are:                                                       \n"
         "    -a or --all            list all users                                  \n"
         "    -A or --accounts=      display specific accounts (comma separated list)\n"
         "    -e or --helpformat     Print a list of fields that can be specified    \n"
         "                           with the '--format' option                      \n"
         "    -l or --long           include normalized usage in output              \n"
         "    -m or --partition      print the partition part of the association     \n"
         "    -M or --cluster=names  clusters to issue commands to.                  \n"
         "                           NOTE: SlurmDBD must be up.                      \n"
         "    -n or --noheader       omit header from output                         \n"
         "    -o or --format=        Comma separated list of fields (use             \n"
         "                           \"--helpformat\" for a list of available fields).\n"
         "    -p or --parsable       '|' delimited output with a trailing '|'        \n"
         "    -P or --parsable2      '|' delimited output without a trailing '|'     \n"
         "    -u or --users=         display specific users (comma separated list)   \n"
         "    -U or --Users          display only user information                   \n"
         "    -v or --verbose        display more information                        \n"
         "    -V or --version        display tool version number                     \n"
         "          --help           display this usage description                  \n"
         "          --usage          display this usage description                  \n"
         "                                                                           \n\n";
}

}  // namespace canopy::ctl::sshare
