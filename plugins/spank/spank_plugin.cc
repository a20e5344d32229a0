#include "plugins/spank/spank_plugin.h"

#include <dlfcn.h>
#include <slurm/slurm_version.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace canopy::spank {

const char* HookSymbol(Hook hook) {
  static constexpr std::array<const char*, kHookCount> kSymbols = {
      "slurm_spank_init",          "slurm_spank_job_prolog",
      "slurm_spank_init_post_opt", "slurm_spank_local_user_init",
      "slurm_spank_user_init",     "slurm_spank_task_init_privileged",
      "slurm_spank_task_init",     "slurm_spank_task_post_fork",
      "slurm_spank_task_exit",     "slurm_spank_job_epilog",
      "slurm_spank_slurmd_exit",   "slurm_spank_exit",
  };
  return kSymbols[static_cast<int>(hook)];
}

SpankPlugin::SpankPlugin(PlugStackEntry entry, void* handle)
    : entry_(std::move(entry)), handle_(handle), args_(entry_.args) {
  for (std::string& arg : args_) {
    argv_.push_back(arg.data());
  }
  argv_.push_back(nullptr);
}

SpankPlugin::~SpankPlugin() { dlclose(handle_); }

bool SpankPlugin::HasAnyHook() const {
  for (spank_f* fn : hooks_) {
    if (fn != nullptr) {
      return true;
    }
  }
  return false;
}

absl::StatusOr<std::unique_ptr<SpankPlugin>> SpankPlugin::Load(const PlugStackEntry& entry) {
  auto fail = [&](absl::string_view why) {
    return absl::FailedPreconditionError(absl::StrCat(entry.path, ": ", why));
  };
  if (entry.path.empty() || entry.path[0] != '/') {
    // As Slurm: a plugin PluginDir does not have is not found (never searched for elsewhere).
    return fail("not found in PluginDir");
  }
  // RTLD_NOW: a plugin that needs a symbol Canopy does not provide fails here, with the
  // symbol's name, rather than in the middle of a job.
  void* handle = dlopen(entry.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return absl::FailedPreconditionError(why != nullptr ? why : entry.path);
  }
  std::unique_ptr<SpankPlugin> plugin(new SpankPlugin(entry, handle));
  const auto* name = static_cast<const char*>(dlsym(handle, "plugin_name"));
  const auto* type = static_cast<const char*>(dlsym(handle, "plugin_type"));
  const auto* version = static_cast<const unsigned int*>(dlsym(handle, "plugin_version"));
  if (name == nullptr || type == nullptr) {
    return fail("not a Slurm plugin (no plugin_name or plugin_type; built without SPANK_PLUGIN?)");
  }
  if (std::strcmp(type, "spank") != 0) {
    return fail(absl::StrCat("plugin_type is '", type, "', not 'spank'"));
  }
  // As Slurm since 21.08: the major and minor release must match the spank.h in use.
  if (version == nullptr ||
      SLURM_VERSION_MAJOR(*version) != SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER) ||
      SLURM_VERSION_MINOR(*version) != SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER)) {
    const unsigned int v = version == nullptr ? 0 : *version;
    return fail(absl::StrFormat(
        "Incompatible Slurm plugin version (%d.%02d.%d); rebuild it "
        "against Slurm %d.%02d's spank.h",
        SLURM_VERSION_MAJOR(v), SLURM_VERSION_MINOR(v), SLURM_VERSION_MICRO(v),
        SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER), SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER)));
  }
  plugin->name_ = name;
  for (int i = 0; i < kHookCount; ++i) {
    plugin->hooks_[i] = reinterpret_cast<spank_f*>(dlsym(handle, HookSymbol(static_cast<Hook>(i))));
  }
  plugin->static_options_ = static_cast<struct spank_option*>(dlsym(handle, "spank_options"));
  return plugin;
}

}  // namespace canopy::spank
