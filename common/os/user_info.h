// Local user accounts: name, primary group, supplementary groups and home directory of a uid (or
// a user name), as the system's name service (NSS: /etc/passwd, LDAP, sssd, ...) knows them.
// Used to turn the uid of a unix-socket caller into a Slurm user name and its groups.
// Stateless and thread-safe (getpwuid_r/getpwnam_r and getgrouplist; nothing is cached).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace canopy::os {

struct UserInfo {
  uint32_t uid = 0;
  std::string name;
  uint32_t gid = 0;              // primary group
  std::vector<uint32_t> groups;  // every group the user is in, `gid` included; ascending, unique
  std::string home_dir;
};

// The account with this uid.
// NotFound: no such user. Unavailable: the name service failed (EIO, out of fds, ...; retry).
absl::StatusOr<UserInfo> LookupUser(uint32_t uid);

// The account with this name. Same codes as LookupUser; InvalidArgument for an empty name.
absl::StatusOr<UserInfo> LookupUserByName(const std::string& name);

// The name of group `gid` (getgrgid_r). NotFound: no such group; Unavailable as LookupUser.
absl::StatusOr<std::string> LookupGroupName(uint32_t gid);

}  // namespace canopy::os
