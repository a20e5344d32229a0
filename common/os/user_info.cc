#include "common/os/user_info.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace canopy::os {
namespace {

// getpwuid_r/getpwnam_r report "no such user" either as 0 with a null result or, depending on
// the NSS module, as one of these (getpwnam(3), RETURN VALUE).
bool MeansNotFound(int error) {
  return error == 0 || error == ENOENT || error == ESRCH || error == EBADF || error == EPERM;
}

// Runs `lookup` (a getpw*_r call) with a buffer that grows until the entry fits, then fills in
// the groups. `what` names the user in messages ("uid 1000", "user 'alice'").
absl::StatusOr<UserInfo> Lookup(const std::function<int(passwd*, char*, size_t, passwd**)>& lookup,
                                const std::string& what) {
  const long hint = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buf(hint > 0 ? static_cast<size_t>(hint) : 16384);
  passwd pw;
  passwd* result = nullptr;
  int error = 0;
  while (true) {
    error = lookup(&pw, buf.data(), buf.size(), &result);
    if (error != ERANGE || buf.size() >= (size_t{1} << 24)) {
      break;
    }
    buf.resize(buf.size() * 2);
  }
  if (result == nullptr) {
    if (MeansNotFound(error)) {
      return absl::NotFoundError(absl::StrCat("no such user: ", what));
    }
    return absl::UnavailableError(
        absl::StrCat("cannot look up ", what, ": ", std::strerror(error)));
  }

  UserInfo info;
  info.uid = pw.pw_uid;
  info.name = pw.pw_name;
  info.gid = pw.pw_gid;
  info.home_dir = pw.pw_dir != nullptr ? pw.pw_dir : "";

  // getgrouplist answers -1 and the needed count when the array is too small; the count can grow
  // between two calls if /etc/group changes, hence the loop.
  std::vector<gid_t> groups(32);
  while (true) {
    int count = static_cast<int>(groups.size());
    if (getgrouplist(pw.pw_name, pw.pw_gid, groups.data(), &count) >= 0) {
      groups.resize(static_cast<size_t>(count));
      break;
    }
    if (count <= static_cast<int>(groups.size())) {
      // No growth asked for, yet it failed: the group database could not be read.
      return absl::UnavailableError(absl::StrCat("cannot list the groups of ", what));
    }
    groups.resize(static_cast<size_t>(count));
  }
  info.groups.assign(groups.begin(), groups.end());
  info.groups.push_back(info.gid);  // getgrouplist includes it; make sure even if NSS does not
  std::sort(info.groups.begin(), info.groups.end());
  info.groups.erase(std::unique(info.groups.begin(), info.groups.end()), info.groups.end());
  return info;
}

}  // namespace

absl::StatusOr<UserInfo> LookupUser(uint32_t uid) {
  return Lookup(
      [uid](passwd* pw, char* buf, size_t len, passwd** result) {
        return getpwuid_r(static_cast<uid_t>(uid), pw, buf, len, result);
      },
      absl::StrCat("uid ", uid));
}

absl::StatusOr<UserInfo> LookupUserByName(const std::string& name) {
  if (name.empty()) {
    return absl::InvalidArgumentError("user name is empty");
  }
  return Lookup([&name](passwd* pw, char* buf, size_t len,
                        passwd** result) { return getpwnam_r(name.c_str(), pw, buf, len, result); },
                absl::StrCat("user '", name, "'"));
}

absl::StatusOr<std::string> LookupGroupName(uint32_t gid) {
  const long hint = sysconf(_SC_GETGR_R_SIZE_MAX);
  std::vector<char> buf(hint > 0 ? static_cast<size_t>(hint) : 16384);
  group gr;
  group* result = nullptr;
  int error = 0;
  while (true) {
    error = getgrgid_r(gid, &gr, buf.data(), buf.size(), &result);
    if (error != ERANGE || buf.size() >= (size_t{1} << 24)) {
      break;
    }
    buf.resize(buf.size() * 2);
  }
  if (result == nullptr) {
    if (MeansNotFound(error)) {
      return absl::NotFoundError(absl::StrCat("no such group: gid ", gid));
    }
    return absl::UnavailableError(
        absl::StrCat("cannot look up gid ", gid, ": ", std::strerror(error)));
  }
  return std::string(gr.gr_name);
}

}  // namespace canopy::os
