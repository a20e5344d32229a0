#include "plugins/spank/plugstack.h"

#include <glob.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace canopy::spank {
namespace {

constexpr int kMaxIncludeDepth = 16;

absl::StatusOr<std::string> ReadText(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    const int err = errno;
    return absl::ErrnoToStatus(err, absl::StrCat("cannot read ", path));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

// PluginDir's directories in order; the first that holds `name` wins. A name none of them has
// stays relative, and SpankPlugin::Load refuses it: dlopen would otherwise look for it in
// LD_LIBRARY_PATH or the current directory, which a job's user may control.
std::string FindPlugin(const std::string& name, const std::string& plugin_dirs) {
  if (name.empty() || name[0] == '/') {
    return name;
  }
  for (absl::string_view dir : absl::StrSplit(plugin_dirs, ':', absl::SkipEmpty())) {
    std::string candidate = absl::StrCat(dir, "/", name);
    if (access(candidate.c_str(), F_OK) == 0) {
      return candidate;
    }
  }
  return name;
}

class Parser {
 public:
  explicit Parser(const std::string& plugin_dirs) : plugin_dirs_(plugin_dirs) {}

  absl::Status Parse(const std::string& text, const std::string& origin, int depth) {
    int line_number = 0;
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      ++line_number;
      if (const size_t hash = line.find('#'); hash != absl::string_view::npos) {
        line = line.substr(0, hash);
      }
      std::vector<std::string> words =
          absl::StrSplit(line, absl::ByAnyChar(" \t\r\f\v"), absl::SkipEmpty());
      if (words.empty()) {
        continue;
      }
      const std::string where = absl::StrCat(origin, ":", line_number);
      const std::string kind = absl::AsciiStrToLower(words[0]);
      if (kind == "include") {
        if (words.size() != 2) {
          result_.warnings.push_back(
              absl::StrCat(where, ": include: expected one file name or glob; line ignored"));
          continue;
        }
        if (absl::Status s = Include(words[1], origin, where, depth); !s.ok()) {
          return s;
        }
        continue;
      }
      if (kind != "required" && kind != "optional") {
        result_.warnings.push_back(absl::StrCat(
            where, ": expected required, optional or include, got '", words[0], "'; line ignored"));
        continue;
      }
      if (words.size() < 2) {
        result_.warnings.push_back(
            absl::StrCat(where, ": ", kind, ": expected the path of a plugin; line ignored"));
        continue;
      }
      PlugStackEntry entry;
      entry.required = kind == "required";
      entry.path = FindPlugin(words[1], plugin_dirs_);
      entry.args.assign(words.begin() + 2, words.end());
      entry.origin = where;
      result_.entries.push_back(std::move(entry));
    }
    return absl::OkStatus();
  }

  PlugStack Take() { return std::move(result_); }

 private:
  absl::Status Include(const std::string& pattern, const std::string& origin,
                       const std::string& where, int depth) {
    if (depth >= kMaxIncludeDepth) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": include: more than ", kMaxIncludeDepth, " nested files (an include loop?)"));
    }
    const std::string full =
        pattern[0] == '/' ? pattern : absl::StrCat(DirectoryOf(origin), "/", pattern);
    glob_t found{};
    const int rc = glob(full.c_str(), 0, nullptr, &found);
    std::vector<std::string> files;
    if (rc == 0) {
      files.assign(found.gl_pathv, found.gl_pathv + found.gl_pathc);
    }
    globfree(&found);
    if (rc != 0 && rc != GLOB_NOMATCH) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": include ", full, ": cannot list"));
    }
    // A glob that matches nothing includes nothing, as in Slurm (a conf.d/ still empty).
    for (const std::string& file : files) {
      absl::StatusOr<std::string> text = ReadText(file);
      if (!text.ok()) {
        return absl::Status(text.status().code(),
                            absl::StrCat(where, ": include: ", text.status().message()));
      }
      if (absl::Status s = Parse(*text, file, depth + 1); !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  }

  const std::string plugin_dirs_;
  PlugStack result_;
};

}  // namespace

absl::StatusOr<PlugStack> ParsePlugStack(const std::string& text, const std::string& origin,
                                         const std::string& plugin_dirs) {
  Parser parser(plugin_dirs);
  if (absl::Status s = parser.Parse(text, origin, 0); !s.ok()) {
    return s;
  }
  return parser.Take();
}

absl::StatusOr<PlugStack> ReadPlugStack(const std::string& path, const std::string& plugin_dirs) {
  absl::StatusOr<std::string> text = ReadText(path);
  if (!text.ok()) {
    return text.status();
  }
  return ParsePlugStack(*text, path, plugin_dirs);
}

}  // namespace canopy::spank
