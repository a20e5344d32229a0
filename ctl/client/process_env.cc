#include "ctl/client/process_env.h"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
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

void AddUmask(std::map<std::string, std::string>& env, mode_t mask) {
  env.emplace("SLURM_UMASK", absl::StrFormat("%04o", mask & 0777));
}

void AddCallerUmask(std::map<std::string, std::string>& env) {
  if (env.contains("SLURM_UMASK")) {
    return;
  }
  // Read from /proc (Linux 4.7 and later), which leaves the mask alone: umask(2) reads it only by
  // changing it, for every thread of the process at once.
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    absl::string_view value = line;
    if (!absl::ConsumePrefix(&value, "Umask:")) {
      continue;
    }
    const std::string digits(absl::StripAsciiWhitespace(value));
    char* end = nullptr;
    const unsigned long mask = std::strtoul(digits.c_str(), &end, 8);
    if (!digits.empty() && *end == '\0') {
      AddUmask(env, static_cast<mode_t>(mask));
      return;
    }
  }
  const mode_t mask = umask(022);
  umask(mask);
  AddUmask(env, mask);
}

}  // namespace canopy::ctl::client
