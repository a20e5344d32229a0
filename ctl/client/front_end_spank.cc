#include "ctl/client/front_end_spank.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/config/cluster_config.h"
#include "common/slurm/job_environment.h"

namespace canopy::ctl::client {
namespace {

constexpr size_t kUsageColumn = 30;  // where Slurm's --help starts an option's usage text

// Whether the config at `path` can name plugins at all, decided without parsing it: a file that
// never mentions PlugStackConfig (in any case) uses plugstack.conf beside it, and without that
// file there are none. A front end then skips parsing the whole config (16,384 NodeName lines
// take sbatch from 0.02 s to 0.06-0.15 s) for plugins a site does not have.
bool MayHavePlugins(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  if (absl::StrContains(absl::AsciiStrToLower(text.str()), "plugstack")) {
    return true;
  }
  const size_t slash = path.rfind('/');
  const std::string beside =
      slash == std::string::npos ? "plugstack.conf" : path.substr(0, slash + 1) + "plugstack.conf";
  return access(beside.c_str(), F_OK) == 0;
}

}  // namespace

FrontEndSpank::FrontEndSpank(std::string program, std::unique_ptr<spank::SpankHost> host)
    : program_(std::move(program)), host_(std::move(host)) {}

absl::StatusOr<std::unique_ptr<FrontEndSpank>> FrontEndSpank::Start(const std::string& program,
                                                                    spank_context_t context) {
  spank::SetLogSink([program](spank::LogLevel level, const std::string& message) {
    if (level == spank::LogLevel::kError) {
      std::cerr << program << ": error: " << message << "\n";
    } else if (level == spank::LogLevel::kInfo) {
      std::cerr << program << ": " << message << "\n";
    }
  });
  std::unique_ptr<spank::SpankHost> host;
  std::optional<config::EnvironmentConfigFile> file = config::ConfigFileFromEnvironment();
  if (file.has_value() && MayHavePlugins(file->path)) {
    // A config the command cannot read is reported where the command needs the config.
    if (absl::StatusOr<config::ClusterConfig> cfg = config::LoadClusterConfig(file->path);
        cfg.ok()) {
      absl::StatusOr<std::unique_ptr<spank::SpankHost>> loaded = spank::SpankHost::LoadFile(
          context, cfg->plugstack_config, cfg->plugin_dir, cfg->plugstack_config_explicit);
      if (!loaded.ok()) {
        return absl::FailedPreconditionError(
            absl::StrCat(loaded.status().message(), "\nerror: Failed to initialize plugin stack"));
      }
      host = *std::move(loaded);
    }
  }
  if (host == nullptr) {
    absl::StatusOr<std::unique_ptr<spank::SpankHost>> none = spank::SpankHost::Load(context, {});
    host = *std::move(none);
  }
  std::unique_ptr<FrontEndSpank> spank(new FrontEndSpank(program, std::move(host)));
  if (!spank->host_->empty()) {
    if (absl::Status s = spank->host_->Run(spank::Hook::kInit); !s.ok()) {
      return absl::FailedPreconditionError("error: Failed to initialize plugin stack");
    }
  }
  for (const spank::PluginOption& option : spank->host_->options()) {
    spank->options_.push_back({option.name, option.has_arg == 0   ? slurm::ArgKind::kNone
                                            : option.has_arg == 2 ? slurm::ArgKind::kOptional
                                                                  : slurm::ArgKind::kRequired});
  }
  return spank;
}

FrontEndSpank::~FrontEndSpank() {
  if (!host_->empty()) {
    (void)host_->Run(spank::Hook::kExit);
  }
}

std::string FrontEndSpank::WithPluginHelp(std::string help, absl::string_view before) const {
  if (host_->options().empty()) {
    return help;
  }
  std::string text = "Options provided by plugins:\n";
  for (const spank::PluginOption& option : host_->options()) {
    std::string line = absl::StrCat("      --", option.name);
    if (!option.arginfo.empty()) {
      absl::StrAppend(&line, "=", option.arginfo);
    }
    if (line.size() >= kUsageColumn) {
      absl::StrAppend(&line, "\n");
      line.append(kUsageColumn, ' ');
    } else {
      line.append(kUsageColumn - line.size(), ' ');
    }
    absl::StrAppend(&text, line, option.usage, "\n");
  }
  text += "\n";
  const size_t at = help.find(std::string(before));
  help.insert(at == std::string::npos ? help.size() : at, text);
  return help;
}

absl::Status FrontEndSpank::ApplyOptions(
    const std::vector<std::pair<std::string, std::string>>& given,
    const std::map<std::string, std::string>& env) {
  if (host_->empty()) {
    return absl::OkStatus();
  }
  for (const spank::PluginOption& option : host_->options()) {
    auto it = env.find(
        absl::StrCat("SLURM_SPANK_", spank::SpankHost::OptionVariable(option.plugin, option.name)));
    if (it == env.end()) {
      continue;
    }
    if (absl::Status s = host_->SetOption(option.name, it->second); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("error: Invalid argument (", it->second,
                                                     ") for environment variable: ", it->first));
    }
  }
  for (const auto& [name, value] : given) {
    if (absl::Status s = host_->SetOption(name, value); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("error: ", s.message()));
    }
  }
  if (absl::Status s = host_->Run(spank::Hook::kInitPostOpt); !s.ok()) {
    return absl::FailedPreconditionError("error: Plugin stack post-option processing failed.");
  }
  return absl::OkStatus();
}

std::map<std::string, std::string> FrontEndSpank::JobEnvironment() const {
  std::map<std::string, std::string> vars;
  for (const std::string& entry : host_->OptionEnvironment()) {
    const size_t eq = entry.find('=');
    vars[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [name, value] : host_->job_control_env()) {
    vars[absl::StrCat(slurm::kSpankJobEnvPrefix, name)] = value;
  }
  return vars;
}

absl::Status FrontEndSpank::LocalUserInit(const spank::JobItems& items,
                                          const std::vector<std::string>& argv) {
  if (host_->empty()) {
    return absl::OkStatus();
  }
  host_->job() = items;
  host_->argv() = argv;
  if (absl::Status s = host_->Run(spank::Hook::kLocalUserInit); !s.ok()) {
    return absl::FailedPreconditionError("error: Failure in local plugin stack");
  }
  return absl::OkStatus();
}

}  // namespace canopy::ctl::client
