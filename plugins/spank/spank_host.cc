#include "plugins/spank/spank_host.h"

#include <cctype>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "plugins/spank/spank_handle.h"
#include "spdlog/spdlog.h"

extern char** environ;

namespace canopy::spank {
namespace {

SpankHost* active_host = nullptr;

LogSink& Sink() {
  static LogSink sink = [](LogLevel level, const std::string& message) {
    switch (level) {
      case LogLevel::kError:
        spdlog::error("{}", message);
        break;
      case LogLevel::kInfo:
        spdlog::info("{}", message);
        break;
      case LogLevel::kVerbose:
      case LogLevel::kDebug:
        spdlog::debug("{}", message);
        break;
      default:
        spdlog::trace("{}", message);
        break;
    }
  };
  return sink;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& s : strings) {
    out.push_back(s.data());
  }
  out.push_back(nullptr);
  return out;
}

// Slurm loads into slurmd only plugins with init or slurmd_exit, and into the prolog/epilog
// process only those with job_prolog or job_epilog.
bool UsedIn(const SpankPlugin& plugin, spank_context_t context) {
  if (context == S_CTX_SLURMD) {
    return plugin.hook(Hook::kInit) != nullptr || plugin.hook(Hook::kSlurmdExit) != nullptr;
  }
  if (context == S_CTX_JOB_SCRIPT) {
    return plugin.hook(Hook::kJobProlog) != nullptr || plugin.hook(Hook::kJobEpilog) != nullptr;
  }
  return true;
}

}  // namespace

void SetLogSink(LogSink sink) { Sink() = std::move(sink); }
void Log(LogLevel level, const std::string& message) { Sink()(level, message); }

SpankHost* SpankHost::Active() { return active_host; }

SpankHost::~SpankHost() {
  if (active_host == this) {
    active_host = nullptr;
  }
}

absl::StatusOr<std::unique_ptr<SpankHost>> SpankHost::Load(
    spank_context_t context, const std::vector<PlugStackEntry>& entries,
    std::set<Hook>* hooks_anywhere) {
  std::unique_ptr<SpankHost> host(new SpankHost(context));
  active_host = host.get();
  for (const PlugStackEntry& entry : entries) {
    absl::StatusOr<std::unique_ptr<SpankPlugin>> plugin = SpankPlugin::Load(entry);
    if (!plugin.ok()) {
      const std::string why = absl::StrCat("spank: ", entry.origin, ": Failed to load ",
                                           entry.required ? "plugin " : "optional plugin ",
                                           entry.path, ": ", plugin.status().message());
      if (entry.required) {
        return absl::FailedPreconditionError(why);
      }
      Log(LogLevel::kVerbose, absl::StrCat(why, ". Ignored."));
      continue;
    }
    if (!(*plugin)->HasAnyHook()) {
      const std::string why =
          absl::StrCat("spank: \"", entry.path, "\" exports 0 symbols (no slurm_spank_* hook)");
      if (entry.required) {
        return absl::FailedPreconditionError(why);
      }
      Log(LogLevel::kVerbose, why);
      continue;
    }
    if (hooks_anywhere != nullptr) {
      for (int h = 0; h < kHookCount; ++h) {
        if ((*plugin)->hook(static_cast<Hook>(h)) != nullptr) {
          hooks_anywhere->insert(static_cast<Hook>(h));
        }
      }
    }
    if (!UsedIn(**plugin, context)) {
      continue;
    }
    // Slurm ignores static option tables in sbatch and salloc; plugins register there instead.
    if (struct spank_option* table = (*plugin)->static_options();
        table != nullptr && context != S_CTX_ALLOCATOR) {
      for (; table->name != nullptr; ++table) {
        if (absl::Status s = host->Register(**plugin, *table); !s.ok()) {
          Log(LogLevel::kError, std::string(s.message()));
        }
      }
    }
    host->plugins_.push_back(*std::move(plugin));
  }
  return host;
}

absl::StatusOr<std::unique_ptr<SpankHost>> SpankHost::LoadFile(spank_context_t context,
                                                               const std::string& plugstack_path,
                                                               const std::string& plugin_dirs,
                                                               bool must_exist) {
  absl::StatusOr<PlugStack> stack = ReadPlugStack(plugstack_path, plugin_dirs);
  if (!stack.ok()) {
    if (absl::IsNotFound(stack.status()) && !must_exist) {
      return Load(context, {});
    }
    return absl::Status(stack.status().code(),
                        absl::StrCat("spank: PlugStackConfig: ", stack.status().message()));
  }
  for (const std::string& warning : stack->warnings) {
    Log(LogLevel::kError, absl::StrCat("spank: ", warning));
  }
  return Load(context, stack->entries);
}

bool SpankHost::Has(Hook hook) const {
  for (const auto& plugin : plugins_) {
    if (plugin->hook(hook) != nullptr) {
      return true;
    }
  }
  return false;
}

absl::Status SpankHost::Run(Hook hook, const TaskItems* task) {
  current_hook_ = hook;
  for (const auto& plugin : plugins_) {
    spank_f* fn = plugin->hook(hook);
    if (fn == nullptr) {
      continue;
    }
    spank_handle handle;
    handle.host = this;
    handle.plugin = plugin.get();
    handle.hook = hook;
    handle.task = task;
    // Slurm 22.05 counts any non-zero return as a failure.
    const int rc = fn(&handle, plugin->argc(), plugin->argv());
    if (rc == 0) {
      continue;
    }
    const std::string why =
        absl::StrCat(plugin->required() ? "spank: required plugin " : "spank: optional plugin ",
                     plugin->name(), ": ", HookSymbol(hook), "() failed with rc=", rc);
    if (plugin->required()) {
      Log(LogLevel::kError, why);
      return absl::FailedPreconditionError(why);
    }
    Log(LogLevel::kVerbose, why);
  }
  return absl::OkStatus();
}

std::string SpankHost::OptionVariable(const std::string& plugin, const std::string& name) {
  std::string var = absl::StrCat("_SLURM_SPANK_OPTION_", plugin, "_", name);
  for (char& c : var) {
    if (!std::isalnum(static_cast<unsigned char>(c))) {
      c = '_';
    }
  }
  return var;
}

PluginOption* SpankHost::FindOption(const std::string& plugin, const std::string& name) {
  for (PluginOption& option : options_) {
    if (option.name == name && (plugin.empty() || option.plugin == plugin)) {
      return &option;
    }
  }
  return nullptr;
}

absl::Status SpankHost::Register(const SpankPlugin& plugin, const struct spank_option& option) {
  if (option.name == nullptr || *option.name == '\0') {
    return absl::InvalidArgumentError(
        absl::StrCat("spank: ", plugin.name(), ": an option without a name"));
  }
  if (std::strlen(option.name) > SPANK_OPTION_MAXLEN) {
    return absl::OutOfRangeError(absl::StrCat("spank: option \"", option.name, "\" provided by ",
                                              plugin.name(), " too long. Ignoring."));
  }
  if (const PluginOption* other = FindOption("", option.name); other != nullptr) {
    if (other->plugin == plugin.name()) {
      return absl::OkStatus();  // the static table and a register() call naming the same
    }
    // As Slurm: the first plugin keeps the option, the second's is left out.
    Log(LogLevel::kInfo, absl::StrCat("spank: option \"", option.name, "\" provided by both ",
                                      other->plugin, " and ", plugin.name()));
    return absl::OkStatus();
  }
  PluginOption added;
  added.plugin = plugin.name();
  added.name = option.name;
  added.arginfo = option.arginfo != nullptr ? option.arginfo : "";
  added.usage = option.usage != nullptr ? option.usage : "";
  added.has_arg = option.has_arg;
  added.val = option.val;
  added.cb = option.cb;
  options_.push_back(std::move(added));
  return absl::OkStatus();
}

absl::Status SpankHost::SetOption(const std::string& name, const std::string& optarg) {
  PluginOption* option = FindOption("", name);
  if (option == nullptr) {
    return absl::NotFoundError(absl::StrCat("--", name, ": no plugin provides this option"));
  }
  const bool remote = context_ == S_CTX_REMOTE || context_ == S_CTX_JOB_SCRIPT;
  if (option->cb != nullptr &&
      option->cb(option->val, option->has_arg != 0 ? optarg.c_str() : nullptr, remote ? 1 : 0) !=
          0) {
    return absl::InvalidArgumentError(absl::StrCat("Invalid --", name, " argument: ", optarg));
  }
  option->set = true;
  option->optarg = optarg;
  return absl::OkStatus();
}

std::vector<std::string> SpankHost::OptionEnvironment() const {
  std::vector<std::string> vars;
  for (const PluginOption& option : options_) {
    if (option.set) {
      vars.push_back(absl::StrCat(OptionVariable(option.plugin, option.name), "=", option.optarg));
    }
  }
  return vars;
}

absl::Status SpankHost::TakeOptionsFromEnv() {
  for (PluginOption& option : options_) {
    const std::string prefix = OptionVariable(option.plugin, option.name) + "=";
    for (const std::string& entry : env_) {
      if (entry.compare(0, prefix.size(), prefix) == 0) {
        if (absl::Status s = SetOption(option.name, entry.substr(prefix.size())); !s.ok()) {
          return s;
        }
        break;
      }
    }
  }
  // As slurmstepd: the carriers are gone from the job's environment before init_post_opt.
  std::erase_if(env_, [](const std::string& entry) {
    return entry.compare(0, 20, "_SLURM_SPANK_OPTION_") == 0;
  });
  return absl::OkStatus();
}

char** SpankHost::EnvArray() {
  if (context_ == S_CTX_LOCAL || context_ == S_CTX_ALLOCATOR) {
    return environ;
  }
  env_array_ = Pointers(env_);
  return env_array_.data();
}

char** SpankHost::ArgvArray() {
  argv_array_ = Pointers(argv_);
  return argv_array_.data();
}

}  // namespace canopy::spank
