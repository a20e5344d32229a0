// The spank_* functions SPANK plugins call, with C linkage and the signatures of Slurm 22.05's
// <slurm/spank.h> (compiled against that header, so a mismatch fails the build). Programs that
// host plugins export these symbols to them (spank_exports.list).
#include <slurm/slurm_version.h>
#include <slurm/spank.h>

#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "plugins/spank/spank_handle.h"
#include "plugins/spank/spank_host.h"

namespace {

// ESPANK_SUCCESS is a plain 0 outside the enum in slurm_errno.h.
constexpr spank_err_t kSuccess = static_cast<spank_err_t>(ESPANK_SUCCESS);

using canopy::spank::Hook;
using canopy::spank::SpankHost;

bool Valid(spank_t spank) {
  return spank != nullptr && spank->magic == spank_handle::kMagic && spank->host != nullptr;
}

bool IsRemote(const SpankHost& host) { return host.context() == S_CTX_REMOTE; }

bool InTaskHook(Hook hook) {
  return hook == Hook::kTaskInitPrivileged || hook == Hook::kTaskInit ||
         hook == Hook::kTaskPostFork || hook == Hook::kTaskExit;
}

// The "K=V" entry of `env` for `name`, or env.end().
std::vector<std::string>::iterator FindVar(std::vector<std::string>& env, const char* name) {
  const size_t len = std::strlen(name);
  for (auto it = env.begin(); it != env.end(); ++it) {
    if (it->size() > len && it->compare(0, len, name) == 0 && (*it)[len] == '=') {
      return it;
    }
  }
  return env.end();
}

template <typename T>
spank_err_t Put(const std::optional<T>& value, T* out) {
  if (out == nullptr) {
    return ESPANK_BAD_ARG;
  }
  if (!value.has_value()) {
    return ESPANK_NOT_AVAIL;
  }
  *out = *value;
  return kSuccess;
}

spank_err_t PutString(const std::optional<std::string>& value, char** out) {
  if (out == nullptr) {
    return ESPANK_BAD_ARG;
  }
  if (!value.has_value()) {
    return ESPANK_NOT_AVAIL;
  }
  *out = const_cast<char*>(value->c_str());
  return kSuccess;
}

// The version strings handed out by S_SLURM_VERSION*: those of the spank.h Canopy implements.
const std::string& VersionString(int part) {
  static const std::string kFull = absl::StrCat(
      SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER), ".",
      SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER) < 10 ? "0" : "",
      SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER), ".", SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
  static const std::string kMajor = absl::StrCat(SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER));
  static const std::string kMinor =
      absl::StrCat(SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER) < 10 ? "0" : "",
                   SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER));
  static const std::string kMicro = absl::StrCat(SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
  switch (part) {
    case 1:
      return kMajor;
    case 2:
      return kMinor;
    case 3:
      return kMicro;
    default:
      return kFull;
  }
}

bool IsVersion(spank_item_t item) {
  return item == S_SLURM_VERSION || item == S_SLURM_VERSION_MAJOR ||
         item == S_SLURM_VERSION_MINOR || item == S_SLURM_VERSION_MICRO;
}

// Which items each context has, as Slurm 22.05 decides (spank.c _check_spank_item_validity):
// ESPANK_SUCCESS when the item may be asked for here.
spank_err_t ItemValidity(spank_context_t context, spank_item_t item) {
  if (IsVersion(item)) {
    return kSuccess;
  }
  switch (context) {
    case S_CTX_REMOTE:
      return kSuccess;
    case S_CTX_SLURMD:
      return ESPANK_NOT_AVAIL;
    case S_CTX_JOB_SCRIPT:
      return item == S_JOB_UID || item == S_JOB_GID || item == S_JOB_ID ? kSuccess
                                                                        : ESPANK_NOT_AVAIL;
    case S_CTX_LOCAL:
      return item == S_JOB_UID || item == S_JOB_GID || item == S_JOB_ID || item == S_JOB_STEPID ||
                     item == S_JOB_ARGV || item == S_JOB_ENV || item == S_JOB_TOTAL_TASK_COUNT ||
                     item == S_JOB_NNODES
                 ? kSuccess
                 : ESPANK_NOT_REMOTE;
    case S_CTX_ALLOCATOR:
      if (item == S_JOB_UID || item == S_JOB_GID) {
        return ESPANK_NOT_AVAIL;  // no job yet
      }
      return item == S_JOB_ID || item == S_JOB_STEPID || item == S_JOB_ARGV || item == S_JOB_ENV ||
                     item == S_JOB_TOTAL_TASK_COUNT || item == S_JOB_NNODES
                 ? ESPANK_BAD_ARG
                 : ESPANK_NOT_REMOTE;
    default:
      return ESPANK_BAD_ARG;
  }
}

spank_err_t GetItem(spank_t spank, spank_item_t item, va_list args) {
  SpankHost& host = *spank->host;
  canopy::spank::JobItems& job = host.job();
  const bool remote = IsRemote(host);
  if (spank_err_t valid = ItemValidity(host.context(), item); valid != kSuccess) {
    return valid;
  }
  switch (item) {
    case S_JOB_UID:
      return Put(job.uid, va_arg(args, uid_t*));
    case S_JOB_GID:
      return Put(job.gid, va_arg(args, gid_t*));
    case S_JOB_ID:
      return Put(job.job_id, va_arg(args, uint32_t*));
    case S_JOB_STEPID:
      return Put(job.step_id, va_arg(args, uint32_t*));
    case S_JOB_NNODES:
      return Put(job.nnodes, va_arg(args, uint32_t*));
    case S_JOB_NODEID:
      return Put(job.node_id, va_arg(args, uint32_t*));
    case S_JOB_LOCAL_TASK_COUNT:
      return Put(job.local_task_count, va_arg(args, uint32_t*));
    case S_JOB_TOTAL_TASK_COUNT:
      return Put(job.total_task_count, va_arg(args, uint32_t*));
    case S_JOB_NCPUS:
      return Put(job.ncpus, va_arg(args, uint16_t*));
    case S_STEP_CPUS_PER_TASK:
      return Put(job.cpus_per_task, va_arg(args, uint32_t*));
    case S_JOB_ARGV: {
      int* argc = va_arg(args, int*);
      char*** argv = va_arg(args, char***);
      if (argc == nullptr || argv == nullptr) {
        return ESPANK_BAD_ARG;
      }
      if (host.argv().empty()) {
        return ESPANK_NOT_AVAIL;
      }
      *argv = host.ArgvArray();
      *argc = static_cast<int>(host.argv().size());
      return kSuccess;
    }
    case S_JOB_ENV: {
      char*** env = va_arg(args, char***);
      if (env == nullptr) {
        return ESPANK_BAD_ARG;
      }
      if (!remote) {
        *env = nullptr;  // srun's S_JOB_ENV is NULL in 22.05
        return kSuccess;
      }
      *env = host.EnvArray();
      return kSuccess;
    }
    case S_TASK_ID:
    case S_TASK_GLOBAL_ID:
    case S_TASK_EXIT_STATUS:
    case S_TASK_PID: {
      void* out = va_arg(args, void*);
      if (out == nullptr) {
        return ESPANK_BAD_ARG;
      }
      if (!remote) {
        return ESPANK_NOT_REMOTE;
      }
      if (spank->task == nullptr || !InTaskHook(spank->hook)) {
        return ESPANK_NOT_TASK;
      }
      const int id = spank->task->local_id;
      if (item == S_TASK_ID) {
        *static_cast<int*>(out) = id;
      } else if (item == S_TASK_GLOBAL_ID) {
        if (id < 0 || static_cast<size_t>(id) >= job.global_task_ids.size()) {
          return ESPANK_NOT_AVAIL;
        }
        *static_cast<uint32_t*>(out) = job.global_task_ids[id];
      } else if (item == S_TASK_EXIT_STATUS) {
        if (!spank->task->exit_status.has_value()) {
          return ESPANK_NOT_AVAIL;
        }
        *static_cast<int*>(out) = *spank->task->exit_status;
      } else {
        if (id < 0 || static_cast<size_t>(id) >= job.task_pids.size() || job.task_pids[id] == 0) {
          return ESPANK_NOT_AVAIL;
        }
        *static_cast<pid_t*>(out) = job.task_pids[id];
      }
      return kSuccess;
    }
    case S_JOB_PID_TO_GLOBAL_ID:
    case S_JOB_PID_TO_LOCAL_ID: {
      const pid_t pid = va_arg(args, pid_t);
      uint32_t* out = va_arg(args, uint32_t*);
      if (out == nullptr) {
        return ESPANK_BAD_ARG;
      }
      if (spank->hook != Hook::kTaskPostFork && spank->hook != Hook::kTaskExit &&
          spank->hook != Hook::kExit) {
        return ESPANK_NOT_EXECD;
      }
      for (size_t i = 0; i < job.task_pids.size(); ++i) {
        if (job.task_pids[i] == pid && pid != 0) {
          *out = item == S_JOB_PID_TO_LOCAL_ID ? static_cast<uint32_t>(i) : job.global_task_ids[i];
          return kSuccess;
        }
      }
      return ESPANK_NOEXIST;
    }
    case S_JOB_LOCAL_TO_GLOBAL_ID: {
      const uint32_t local = va_arg(args, uint32_t);
      uint32_t* out = va_arg(args, uint32_t*);
      if (out == nullptr) {
        return ESPANK_BAD_ARG;
      }
      if (!remote) {
        return ESPANK_NOT_REMOTE;
      }
      if (local >= job.global_task_ids.size()) {
        return ESPANK_NOEXIST;
      }
      *out = job.global_task_ids[local];
      return kSuccess;
    }
    case S_JOB_GLOBAL_TO_LOCAL_ID: {
      const uint32_t global = va_arg(args, uint32_t);
      uint32_t* out = va_arg(args, uint32_t*);
      if (out == nullptr) {
        return ESPANK_BAD_ARG;
      }
      if (!remote) {
        return ESPANK_NOT_REMOTE;
      }
      for (size_t i = 0; i < job.global_task_ids.size(); ++i) {
        if (job.global_task_ids[i] == global) {
          *out = static_cast<uint32_t>(i);
          return kSuccess;
        }
      }
      return ESPANK_NOEXIST;
    }
    case S_JOB_SUPPLEMENTARY_GIDS: {
      gid_t** gids = va_arg(args, gid_t**);
      int* count = va_arg(args, int*);
      if (gids == nullptr || count == nullptr) {
        return ESPANK_BAD_ARG;
      }
      if (!job.supplementary_gids.has_value()) {
        return ESPANK_NOT_AVAIL;
      }
      *gids = job.supplementary_gids->data();
      *count = static_cast<int>(job.supplementary_gids->size());
      return kSuccess;
    }
    case S_SLURM_VERSION:
    case S_SLURM_VERSION_MAJOR:
    case S_SLURM_VERSION_MINOR:
    case S_SLURM_VERSION_MICRO: {
      char** out = va_arg(args, char**);
      if (out == nullptr) {
        return ESPANK_BAD_ARG;
      }
      *out = const_cast<char*>(VersionString(item - S_SLURM_VERSION).c_str());
      return kSuccess;
    }
    case S_JOB_ALLOC_CORES:
      return PutString(job.job_alloc_cores, va_arg(args, char**));
    case S_JOB_ALLOC_MEM:
      return Put(job.job_alloc_mem_mb, va_arg(args, uint64_t*));
    case S_STEP_ALLOC_CORES:
      return PutString(job.step_alloc_cores, va_arg(args, char**));
    case S_STEP_ALLOC_MEM:
      return Put(job.step_alloc_mem_mb, va_arg(args, uint64_t*));
    case S_SLURM_RESTART_COUNT:
      return Put(job.restart_count, va_arg(args, uint32_t*));
    case S_JOB_ARRAY_ID:
      return Put(job.array_job_id, va_arg(args, uint32_t*));
    case S_JOB_ARRAY_TASK_ID:
      return Put(job.array_task_id, va_arg(args, uint32_t*));
  }
  return ESPANK_BAD_ARG;
}

// spank_job_control_*: srun, sbatch and salloc only, with 22.05's codes elsewhere.
spank_err_t JobControlAllowed(const SpankHost& host) {
  switch (host.context()) {
    case S_CTX_LOCAL:
    case S_CTX_ALLOCATOR:
      return kSuccess;
    case S_CTX_REMOTE:
      return ESPANK_NOT_LOCAL;
    case S_CTX_SLURMD:
      return ESPANK_NOT_AVAIL;
    default:
      return ESPANK_BAD_ARG;
  }
}

}  // namespace

extern "C" {

const char* spank_strerror(spank_err_t err) {
  if (err == kSuccess) {
    return "No error";
  }
  switch (err) {
    case ESPANK_ERROR:
      return "Generic error";
    case ESPANK_BAD_ARG:
      return "Bad argument";
    case ESPANK_NOT_TASK:
      return "Not in task context";
    case ESPANK_ENV_EXISTS:
      return "Environment variable exists";
    case ESPANK_ENV_NOEXIST:
      return "No such environment variable";
    case ESPANK_NOSPACE:
      return "Buffer too small";
    case ESPANK_NOT_REMOTE:
      return "Valid only in remote context";
    case ESPANK_NOEXIST:
      return "Id/PID does not exist on this node";
    case ESPANK_NOT_EXECD:
      return "Lookup by PID requested, but no tasks running";
    case ESPANK_NOT_AVAIL:
      return "Item not available from this callback";
    case ESPANK_NOT_LOCAL:
      return "Valid only in local or allocator context";
    default:
      return "Unknown error";
  }
}

int spank_symbol_supported(const char* symbol) {
  if (symbol == nullptr) {
    return -1;
  }
  for (int i = 0; i < canopy::spank::kHookCount; ++i) {
    if (std::strcmp(symbol, canopy::spank::HookSymbol(static_cast<Hook>(i))) == 0) {
      return 1;
    }
  }
  return 0;
}

int spank_remote(spank_t spank) {
  if (!Valid(spank)) {
    return -1;
  }
  return IsRemote(*spank->host) ? 1 : 0;
}

spank_context_t spank_context(void) {
  const SpankHost* host = SpankHost::Active();
  return host == nullptr ? S_CTX_ERROR : host->context();
}

spank_err_t spank_option_register(spank_t spank, struct spank_option* opt) {
  if (!Valid(spank) || opt == nullptr || opt->name == nullptr || opt->usage == nullptr ||
      spank->plugin == nullptr) {
    return ESPANK_BAD_ARG;
  }
  if (spank->hook != Hook::kInit) {
    return ESPANK_BAD_ARG;  // Slurm takes options only from slurm_spank_init
  }
  absl::Status s = spank->host->Register(*spank->plugin, *opt);
  if (!s.ok()) {
    canopy::spank::Log(canopy::spank::LogLevel::kError, std::string(s.message()));
    return absl::IsOutOfRange(s) ? ESPANK_NOSPACE : ESPANK_BAD_ARG;
  }
  return kSuccess;
}

spank_err_t spank_option_getopt(spank_t spank, struct spank_option* opt, char** optarg) {
  if (!Valid(spank) || opt == nullptr || opt->name == nullptr || spank->plugin == nullptr ||
      (opt->has_arg != 0 && optarg == nullptr)) {
    return ESPANK_BAD_ARG;
  }
  // As in Slurm 22.05: not in the hooks that run around option processing or at the end.
  const Hook hook = spank->hook;
  if (hook == Hook::kInit || hook == Hook::kInitPostOpt || hook == Hook::kTaskPostFork ||
      hook == Hook::kSlurmdExit || hook == Hook::kExit) {
    return ESPANK_NOT_AVAIL;
  }
  canopy::spank::PluginOption* found = spank->host->FindOption(spank->plugin->name(), opt->name);
  if (found == nullptr || !found->set) {
    return ESPANK_ERROR;
  }
  if (optarg != nullptr) {
    *optarg = found->has_arg != 0 ? found->optarg.data() : nullptr;
  }
  return kSuccess;
}

spank_err_t spank_get_item(spank_t spank, spank_item_t item, ...) {
  if (!Valid(spank)) {
    return ESPANK_BAD_ARG;
  }
  va_list args;
  // spank.h fixes this signature: the enum before "..." has int's size and is not promoted
  // (Slurm's own implementation does the same), whatever clang's -Wvarargs fears.
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wvarargs"
#endif
  va_start(args, item);
#if defined(__clang__)
#pragma clang diagnostic pop
#endif
  const spank_err_t rc = GetItem(spank, item, args);
  va_end(args);
  return rc;
}

spank_err_t spank_getenv(spank_t spank, const char* var, char* buf, int len) {
  if (!Valid(spank) || var == nullptr || buf == nullptr || len <= 0) {
    return ESPANK_BAD_ARG;
  }
  SpankHost& host = *spank->host;
  if (!IsRemote(host)) {
    return ESPANK_NOT_REMOTE;
  }
  auto it = FindVar(host.env(), var);
  if (it == host.env().end()) {
    return ESPANK_ENV_NOEXIST;
  }
  const std::string value = it->substr(std::strlen(var) + 1);
  if (value.size() + 1 > static_cast<size_t>(len)) {
    return ESPANK_NOSPACE;
  }
  std::memcpy(buf, value.c_str(), value.size() + 1);
  return kSuccess;
}

spank_err_t spank_setenv(spank_t spank, const char* var, const char* val, int overwrite) {
  if (!Valid(spank) || var == nullptr || val == nullptr || *var == '\0' ||
      std::strchr(var, '=') != nullptr) {
    return ESPANK_BAD_ARG;
  }
  SpankHost& host = *spank->host;
  if (!IsRemote(host)) {
    return ESPANK_NOT_REMOTE;
  }
  auto it = FindVar(host.env(), var);
  if (it != host.env().end()) {
    if (overwrite == 0) {
      return ESPANK_ENV_EXISTS;
    }
    *it = absl::StrCat(var, "=", val);
  } else {
    host.env().push_back(absl::StrCat(var, "=", val));
  }
  return kSuccess;
}

spank_err_t spank_unsetenv(spank_t spank, const char* var) {
  if (!Valid(spank) || var == nullptr) {
    return ESPANK_BAD_ARG;
  }
  SpankHost& host = *spank->host;
  if (!IsRemote(host)) {
    return ESPANK_NOT_REMOTE;
  }
  if (auto it = FindVar(host.env(), var); it != host.env().end()) {
    host.env().erase(it);
  }
  return kSuccess;
}

spank_err_t spank_job_control_setenv(spank_t spank, const char* name, const char* value,
                                     int overwrite) {
  if (!Valid(spank) || name == nullptr || value == nullptr) {
    return ESPANK_BAD_ARG;
  }
  SpankHost& host = *spank->host;
  if (spank_err_t allowed = JobControlAllowed(host); allowed != kSuccess) {
    return allowed;
  }
  auto [it, added] = host.job_control_env().try_emplace(name, value);
  if (!added && overwrite != 0) {
    it->second = value;  // Slurm 22.05 leaves an existing one alone without an error
  }
  return kSuccess;
}

spank_err_t spank_job_control_getenv(spank_t spank, const char* name, char* buf, int len) {
  if (!Valid(spank) || name == nullptr || buf == nullptr || len <= 0) {
    return ESPANK_BAD_ARG;
  }
  SpankHost& host = *spank->host;
  if (spank_err_t allowed = JobControlAllowed(host); allowed != kSuccess) {
    return allowed;
  }
  auto it = host.job_control_env().find(name);
  if (it == host.job_control_env().end()) {
    return ESPANK_ENV_NOEXIST;
  }
  if (it->second.size() + 1 > static_cast<size_t>(len)) {
    return ESPANK_NOSPACE;
  }
  std::memcpy(buf, it->second.c_str(), it->second.size() + 1);
  return kSuccess;
}

spank_err_t spank_job_control_unsetenv(spank_t spank, const char* name) {
  if (!Valid(spank) || name == nullptr) {
    return ESPANK_BAD_ARG;
  }
  SpankHost& host = *spank->host;
  if (spank_err_t allowed = JobControlAllowed(host); allowed != kSuccess) {
    return allowed;
  }
  host.job_control_env().erase(name);
  return kSuccess;
}

// Not declared in 22.05's spank.h but exported by its slurmstepd, and called by plugins that
// change what a task runs (declared here with the signature of later releases' spank.h).
spank_err_t spank_prepend_task_argv(spank_t spank, int argc, const char* argv[]);
spank_err_t spank_prepend_task_argv(spank_t spank, int argc, const char* argv[]) {
  if (!Valid(spank) || argc < 0 || (argc > 0 && argv == nullptr)) {
    return ESPANK_BAD_ARG;
  }
  if (!IsRemote(*spank->host)) {
    return ESPANK_NOT_REMOTE;
  }
  if (spank->hook != Hook::kTaskInit && spank->hook != Hook::kTaskInitPrivileged) {
    return ESPANK_NOT_TASK;
  }
  std::vector<std::string>& task_argv = spank->host->argv();
  task_argv.insert(task_argv.begin(), argv, argv + argc);
  return kSuccess;
}

}  // extern "C"
