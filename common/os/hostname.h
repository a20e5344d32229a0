// This machine's host name, for registration and `scontrol ping`. Thread-safe.
#pragma once

#include <unistd.h>

#include <string>

namespace canopy::os {

// The host name as gethostname() gives it; with `short_name`, up to the first dot.
// "localhost" if the system cannot say.
inline std::string Hostname(bool short_name) {
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) {
    return "localhost";
  }
  std::string name(buf);
  return short_name ? name.substr(0, name.find('.')) : name;
}

}  // namespace canopy::os
