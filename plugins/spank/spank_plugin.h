// SpankPlugin: one SPANK plugin loaded from a plugstack.conf entry, checked as Slurm checks it
// (plugin_name, plugin_type "spank", plugin_version of this Slurm release), with its hooks
// looked up once. Owns the dlopen handle. Thread-compatible.
#pragma once

#include <slurm/spank.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "plugins/spank/plugstack.h"

namespace canopy::spank {

// The callbacks of spank.h, in the order Slurm documents them.
enum class Hook {
  kInit,
  kJobProlog,
  kInitPostOpt,
  kLocalUserInit,
  kUserInit,
  kTaskInitPrivileged,
  kTaskInit,
  kTaskPostFork,
  kTaskExit,
  kJobEpilog,
  kSlurmdExit,
  kExit,
};
inline constexpr int kHookCount = 12;

// "slurm_spank_init", ...: the symbol a plugin defines for `hook`.
const char* HookSymbol(Hook hook);

class SpankPlugin {
 public:
  // FailedPrecondition with the path and the reason (dlopen's message, a missing plugin_name,
  // "Incompatible Slurm plugin version (21.8.5)", a plugin_type other than "spank").
  static absl::StatusOr<std::unique_ptr<SpankPlugin>> Load(const PlugStackEntry& entry);
  ~SpankPlugin();
  SpankPlugin(const SpankPlugin&) = delete;
  SpankPlugin& operator=(const SpankPlugin&) = delete;

  const std::string& name() const { return name_; }
  const std::string& path() const { return entry_.path; }
  bool required() const { return entry_.required; }
  // The hook, or nullptr when the plugin does not define it.
  spank_f* hook(Hook hook) const { return hooks_[static_cast<int>(hook)]; }
  bool HasAnyHook() const;
  // The plugin's static `spank_options` table (ends with SPANK_OPTIONS_TABLE_END), or nullptr.
  struct spank_option* static_options() const {
    return static_options_;
  }
  // The plugstack arguments, as the argc/argv every hook gets (argv stays valid while loaded).
  int argc() const { return static_cast<int>(args_.size()); }
  char** argv() { return argv_.data(); }

 private:
  SpankPlugin(PlugStackEntry entry, void* handle);

  const PlugStackEntry entry_;
  void* const handle_;
  std::string name_;
  std::array<spank_f*, kHookCount> hooks_{};
  struct spank_option* static_options_ = nullptr;
  std::vector<std::string> args_;
  std::vector<char*> argv_;
};

}  // namespace canopy::spank
