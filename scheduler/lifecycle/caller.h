// Caller: who sent a request to the controller, as far as the controller can tell.
//
// Over the unix socket the kernel tells canopyd the caller's uid/gid (SO_PEERCRED); over TCP a
// MUNGE credential does (AuthType=auth/munge), and without one the caller is anonymous and may
// only read. Plain value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace canopy::lifecycle {

struct Caller {
  bool authenticated = false;  // uid/gid come from the kernel
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::vector<uint32_t> groups;  // supplementary groups
  std::string user_name;
  bool is_operator = false;
  const char* via = "anonymous";  // how canopyd knows: "unix socket", "munge", "anonymous"  //
                                  // root, canopyd's own user, or listed in the config's operators

  // May act on a job owned by `owner_uid`.
  bool MayControl(uint32_t owner_uid) const {
    return authenticated && (is_operator || uid == owner_uid);
  }
};

}  // namespace canopy::lifecycle
