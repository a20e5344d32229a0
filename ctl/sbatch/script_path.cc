#include "ctl/sbatch/script_path.h"

#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"

namespace canopy::ctl::sbatch {
namespace {

std::string Join(const std::string& dir, const std::string& name) {
  if (dir.empty()) {
    return name;
  }
  return absl::EndsWith(dir, "/") ? dir + name : dir + "/" + name;
}

// A file sbatch could read: a regular file (through links) the caller may read.
bool Readable(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && access(path.c_str(), R_OK) == 0;
}

}  // namespace

std::string ResolveScriptPath(const std::string& name, const std::string& work_dir,
                              const char* path_env) {
  if (name.empty() || absl::StartsWith(name, "/")) {
    return name;
  }
  if (absl::StartsWith(name, ".")) {
    return Join(work_dir, name);
  }
  if (const std::string here = Join(work_dir, name); Readable(here)) {
    return here;
  }
  if (path_env != nullptr && !absl::StrContains(name, '/')) {
    for (absl::string_view dir : absl::StrSplit(path_env, ':', absl::SkipEmpty())) {
      if (const std::string found = Join(std::string(dir), name); Readable(found)) {
        return found;
      }
    }
  }
  return name;
}

}  // namespace canopy::ctl::sbatch
