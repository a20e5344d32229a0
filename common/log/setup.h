// One logging set-up for canopyd and canopy-agent: spdlog to stderr (journald under systemd), or
// with --log-file to a file reopened on SIGUSR2 (ReopenLogFile; log_file_sink.h), at
// the level given by --log_level (trace, debug, info, warn, error), as text lines or, with
// --log_format=json, one JSON object per line for log shippers (json_message_flag.h). Call once
// from main().
#pragma once

#include <memory>
#include <string>

#include "common/log/json_message_flag.h"
#include "common/log/log_file_sink.h"
#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/spdlog.h"

namespace canopy::log {

// False, with `error` saying which flag and what it takes, for an unknown level or format.
// The log file, when there is one (set once by SetUpLogging).
inline std::shared_ptr<LogFileSink>& LogFile() {
  static std::shared_ptr<LogFileSink> file;
  return file;
}

// SIGUSR2: starts a new log file where logrotate moved the old one. No-op without --log-file.
inline void ReopenLogFile() {
  if (LogFile() == nullptr) {
    return;
  }
  if (std::string error; !LogFile()->Reopen(error)) {
    spdlog::error("{}; still writing to the old file", error);
    return;
  }
  spdlog::info("log file reopened (SIGUSR2)");
}

// `log_file`: empty for stderr.
inline bool SetUpLogging(const std::string& program, const std::string& level,
                         const std::string& format, const std::string& log_file,
                         std::string& error) {
  const spdlog::level::level_enum parsed = spdlog::level::from_str(level);
  if (parsed == spdlog::level::off && level != "off") {
    error = "--log_level: expected trace, debug, info, warn, error or off, got '" + level + "'";
    return false;
  }
  if (format != "text" && format != "json") {
    error = "--log_format: expected text or json, got '" + format + "'";
    return false;
  }
  if (log_file.empty()) {
    spdlog::set_default_logger(spdlog::stderr_color_mt(program));
  } else {
    LogFile() = LogFileSink::Open(log_file, error);
    if (LogFile() == nullptr) {
      return false;
    }
    spdlog::set_default_logger(std::make_shared<spdlog::logger>(program, LogFile()));
  }
  if (format == "json") {
    spdlog::set_formatter(JsonLogFormatter(program));
  } else {
    spdlog::set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%^%l%$] %v");
  }
  spdlog::set_level(parsed);
  return true;
}

}  // namespace canopy::log
