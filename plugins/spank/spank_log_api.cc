// The logging functions of spank.h (slurm_info, slurm_error, ...), with C linkage: each formats
// its message and hands it to the host's log sink (spank_host.h SetLogSink), which sends it to
// the program's log or stderr as the hosting program decides.
#include <slurm/spank.h>

#include <cstdarg>
#include <cstdio>

#include "plugins/spank/spank_host.h"

namespace {

void LogV(canopy::spank::LogLevel level, const char* format, va_list args) {
  char buffer[4096];
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  canopy::spank::Log(level, buffer);
}

}  // namespace

// Each function formats its arguments and logs them at its level: the same body seven times,
// written once. Variadic functions cannot forward "...", hence a macro rather than a template.
#define CANOPY_SPANK_LOG_FUNCTION(name, level)          \
  void name(const char* format, ...) {                  \
    va_list args;                                       \
    va_start(args, format);                             \
    LogV(canopy::spank::LogLevel::level, format, args); \
    va_end(args);                                       \
  }

extern "C" {

CANOPY_SPANK_LOG_FUNCTION(slurm_info, kInfo)
CANOPY_SPANK_LOG_FUNCTION(slurm_error, kError)
CANOPY_SPANK_LOG_FUNCTION(slurm_verbose, kVerbose)
CANOPY_SPANK_LOG_FUNCTION(slurm_debug, kDebug)
CANOPY_SPANK_LOG_FUNCTION(slurm_debug2, kDebug2)
CANOPY_SPANK_LOG_FUNCTION(slurm_debug3, kDebug3)
CANOPY_SPANK_LOG_FUNCTION(slurm_spank_log, kInfo)

}  // extern "C"
