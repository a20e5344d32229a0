#include "ctl/sbatch/script_path.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace canopy::ctl::sbatch {
namespace {

// A file sbatch would take: a regular file (through links).
bool IsFile(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

}  // namespace

std::string ResolvePath(const std::string& path, const std::string& dir) {
  if (path.empty() || path[0] == '/') {
    return path;
  }
  return absl::StrCat(dir, dir.empty() || dir.back() == '/' ? "" : "/", path);
}

std::string ResolveScriptPath(const std::string& name, const std::string& work_dir,
                              const char* path_env) {
  if (name.empty() || absl::StartsWith(name, "/") || absl::StartsWith(name, ".")) {
    return name;
  }
  if (const std::string here = ResolvePath(name, work_dir); IsFile(here)) {
    return here;
  }
  if (path_env != nullptr) {
    for (absl::string_view dir : absl::StrSplit(path_env, ':', absl::SkipEmpty())) {
      if (const std::string found = ResolvePath(name, std::string(dir)); IsFile(found)) {
        return found;
      }
    }
  }
  return name;
}

}  // namespace canopy::ctl::sbatch
