#include "common/slurm/getopt.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace canopy::slurm {
namespace {

// Where the parser stands in `args`; the short-option loop and the long-option lookup both
// consume the following argument as a value.
struct Cursor {
  absl::Span<const std::string> args;
  size_t next = 0;  // index of the argument after the one being parsed

  std::optional<absl::string_view> TakeNext() {
    if (next >= args.size()) {
      return std::nullopt;
    }
    return absl::string_view(args[next++]);
  }
};

// glibc's process_long_option: an exact name first, else the unique prefix. Two prefix
// matches are ambiguous unless they agree in argument kind and id (glibc compares has_arg,
// flag and val); the list names the first match and every later one that differs from it.
absl::StatusOr<const OptionSpec*> FindLong(const OptionTable& table, absl::string_view name,
                                           absl::string_view spelled) {
  for (const OptionSpec& option : table.options) {
    if (!option.long_name.empty() && option.long_name == name) {
      return &option;
    }
  }
  const OptionSpec* first = nullptr;
  std::vector<const OptionSpec*> differing;
  for (const OptionSpec& option : table.options) {
    if (option.long_name.empty() || option.long_name.substr(0, name.size()) != name) {
      continue;
    }
    if (first == nullptr) {
      first = &option;
    } else if (option.arg != first->arg || option.id != first->id) {
      differing.push_back(&option);
    }
  }
  if (first == nullptr) {
    return UsageError(table.command, absl::StrCat("unrecognized option '", spelled, "'"));
  }
  if (!differing.empty()) {
    std::string line = absl::StrCat("option '", spelled, "' is ambiguous; possibilities: '--",
                                    first->long_name, "'");
    for (const OptionSpec* option : differing) {
      absl::StrAppend(&line, " '--", option->long_name, "'");
    }
    return UsageError(table.command, line);
  }
  return first;
}

// One "--name[=value]" argument.
absl::Status ParseLong(const OptionTable& table, absl::string_view arg, Cursor& cursor,
                       OptionHandler handle) {
  const absl::string_view body = arg.substr(2);
  const size_t eq = body.find('=');
  absl::StatusOr<const OptionSpec*> found = FindLong(table, body.substr(0, eq), arg);
  if (!found.ok()) {
    return found.status();
  }
  const OptionSpec& option = **found;
  std::optional<absl::string_view> value;
  if (eq != absl::string_view::npos) {
    if (option.arg == ArgKind::kNone) {
      return UsageError(table.command, absl::StrCat("option '--", option.long_name,
                                                    "' doesn't allow an argument"));
    }
    value = body.substr(eq + 1);
  } else if (option.arg == ArgKind::kRequired) {
    value = cursor.TakeNext();
    if (!value.has_value()) {
      return UsageError(table.command,
                        absl::StrCat("option '--", option.long_name, "' requires an argument"));
    }
  }
  return handle(option, value);
}

const OptionSpec* FindShort(const OptionTable& table, char letter) {
  for (const OptionSpec& option : table.options) {
    if (option.short_name != '\0' && option.short_name == letter) {
      return &option;
    }
  }
  return nullptr;
}

// One "-abc" argument: letters until one takes a value (the rest of the argument, or the next
// argument when the rest is empty and the value is required).
absl::Status ParseShort(const OptionTable& table, absl::string_view arg, Cursor& cursor,
                        OptionHandler handle) {
  for (size_t k = 1; k < arg.size(); ++k) {
    const OptionSpec* option = FindShort(table, arg[k]);
    if (option == nullptr) {
      return UsageError(table.command, absl::StrCat("invalid option -- '", arg.substr(k, 1), "'"));
    }
    const absl::string_view rest = arg.substr(k + 1);
    if (option->arg == ArgKind::kNone) {
      if (absl::Status s = handle(*option, std::nullopt); !s.ok()) {
        return s;
      }
      continue;
    }
    std::optional<absl::string_view> value;
    if (!rest.empty()) {
      value = rest;
    } else if (option->arg == ArgKind::kRequired) {
      value = cursor.TakeNext();
      if (!value.has_value()) {
        return UsageError(table.command,
                          absl::StrCat("option requires an argument -- '", arg.substr(k, 1), "'"));
      }
    }
    return handle(*option, value);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status UsageError(absl::string_view command, absl::string_view line) {
  return absl::InvalidArgumentError(
      absl::StrCat(line, "\nTry \"", command, " --help\" for more information"));
}

absl::StatusOr<std::vector<std::string>> ParseCommandLine(const OptionTable& table,
                                                          absl::Span<const std::string> args,
                                                          OptionHandler handle) {
  std::vector<std::string> operands;
  Cursor cursor{args, 0};
  while (cursor.next < args.size()) {
    const absl::string_view arg = args[cursor.next++];
    if (arg == "--") {
      operands.insert(operands.end(), args.begin() + static_cast<std::ptrdiff_t>(cursor.next),
                      args.end());
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      if (table.ordering == Ordering::kRequireOrder) {
        operands.insert(operands.end(), args.begin() + static_cast<std::ptrdiff_t>(cursor.next) - 1,
                        args.end());
        break;
      }
      operands.emplace_back(arg);
      continue;
    }
    absl::Status status = arg[1] == '-' ? ParseLong(table, arg, cursor, handle)
                                        : ParseShort(table, arg, cursor, handle);
    if (!status.ok()) {
      return status;
    }
  }
  return operands;
}

std::vector<OptionSpec> WithExtraOptions(absl::Span<const OptionSpec> base,
                                         absl::Span<const ExtraOption> extra) {
  std::vector<OptionSpec> options(base.begin(), base.end());
  for (size_t i = 0; i < extra.size(); ++i) {
    options.emplace_back(extra[i].name, '\0', extra[i].arg, kExtraOptionId + static_cast<int>(i));
  }
  return options;
}

}  // namespace canopy::slurm
