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

extern "C" {

void slurm_info(const char* format, ...) {
  va_list args;
  va_start(args, format);
  LogV(canopy::spank::LogLevel::kInfo, format, args);
  va_end(args);
}

void slurm_error(const char* format, ...) {
  va_list args;
  va_start(args, format);
  LogV(canopy::spank::LogLevel::kError, format, args);
  va_end(args);
}

void slurm_verbose(const char* format, ...) {
  va_list args;
  va_start(args, format);
  LogV(canopy::spank::LogLevel::kVerbose, format, args);
  va_end(args);
}

void slurm_debug(const char* format, ...) {
  va_list args;
  va_start(args, format);
  LogV(canopy::spank::LogLevel::kDebug, format, args);
  va_end(args);
}

void slurm_debug2(const char* format, ...) {
  va_list args;
  va_start(args, format);
  LogV(canopy::spank::LogLevel::kDebug2, format, args);
  va_end(args);
}

void slurm_debug3(const char* format, ...) {
  va_list args;
  va_start(args, format);
  LogV(canopy::spank::LogLevel::kDebug3, format, args);
  va_end(args);
}

void slurm_spank_log(const char* format, ...) {
  va_list args;
  va_start(args, format);
  LogV(canopy::spank::LogLevel::kInfo, format, args);
  va_end(args);
}

}  // extern "C"
