// GNU-style flag spellings (gnu_flags.h).
#include "common/os/gnu_flags.h"

#include <cstring>

namespace canopy::os {

void AcceptDashedFlags(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    char* arg = argv[i];
    if (std::strcmp(arg, "--") == 0) {
      return;
    }
    if (std::strncmp(arg, "--", 2) != 0) {
      continue;
    }
    // The name runs from after "--" to '=' or the end; the value is left alone.
    for (char* c = arg + 2; *c != '\0' && *c != '='; ++c) {
      if (*c == '-') {
        *c = '_';
      }
    }
  }
}

}  // namespace canopy::os
