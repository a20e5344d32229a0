#include "ctl/client/process_env.h"

#include <unistd.h>

#include <climits>
#include <cstring>

#include "common/slurm/job_environment.h"

extern char** environ;

namespace canopy::ctl::client {

std::map<std::string, std::string> ProcessEnvironment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const char* eq = std::strchr(*e, '=');
    // The SPANK job control variables are the plugins' to set (FrontEndSpank::JobEnvironment),
    // never the caller's: the root Prolog trusts them as SPANK_*.
    if (std::strncmp(*e, slurm::kSpankJobEnvPrefix, sizeof(slurm::kSpankJobEnvPrefix) - 1) == 0) {
      continue;
    }
    if (eq != nullptr) {
      env.emplace(std::string(*e, static_cast<size_t>(eq - *e)), std::string(eq + 1));
    }
  }
  return env;
}

std::string CurrentDirectory() {
  char buf[PATH_MAX];
  if (getcwd(buf, sizeof(buf)) == nullptr) {
    return "/";
  }
  return buf;
}

}  // namespace canopy::ctl::client
