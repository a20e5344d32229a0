#include "scheduler/server/daemon_setup.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace canopy::server {

absl::StatusOr<std::string> ResolveConfigPath(const std::string& flag_value) {
  if (!flag_value.empty()) {
    return flag_value;
  }
  for (const char* var : {"CANOPY_CONFIG", "SLURM_CONF"}) {
    if (const char* v = std::getenv(var); v != nullptr && *v != '\0') {
      return std::string(v);
    }
  }
  return absl::FailedPreconditionError(
      "no configuration: pass --config FILE (Canopy YAML or slurm.conf), or set CANOPY_CONFIG "
      "or SLURM_CONF");
}

absl::StatusOr<os::UniqueFd> LockStateDir(const std::string& dir) {
  std::error_code ec;
  const bool created = std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create state directory ", dir, ": ", ec.message()));
  }
  // A directory canopyd makes is closed to group and others (search stays, so users reach the
  // socket inside). One the admin made is left as it is: it may be shared, or be /tmp.
  if (created && ::chmod(dir.c_str(), 0711) != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot restrict state directory ", dir, " to 0711: ", std::strerror(errno)));
  }
  const std::string lock_path = absl::StrCat(dir, "/canopyd.lock");
  os::UniqueFd fd(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!fd.valid()) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot open ", lock_path, ": ", std::strerror(errno)));
  }
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("another canopyd is using state directory ", dir, " (", lock_path,
                     " is locked); stop it first or pick another --state_dir"));
  }
  return fd;
}

}  // namespace canopy::server
