// One logging set-up for canopyd and canopy-agent: spdlog to stderr (journald under systemd), at
// the level given by --log_level (trace, debug, info, warn, error), as text lines or, with
// --log_format=json, one JSON object per line for log shippers (json_message_flag.h). Call once
// from main().
#pragma once

#include <string>

#include "common/log/json_message_flag.h"
#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/spdlog.h"

namespace canopy::log {

// False, with `error` saying which flag and what it takes, for an unknown level or format.
inline bool SetUpLogging(const std::string& program, const std::string& level,
                         const std::string& format, std::string& error) {
  const spdlog::level::level_enum parsed = spdlog::level::from_str(level);
  if (parsed == spdlog::level::off && level != "off") {
    error = "--log_level: expected trace, debug, info, warn, error or off, got '" + level + "'";
    return false;
  }
  if (format != "text" && format != "json") {
    error = "--log_format: expected text or json, got '" + format + "'";
    return false;
  }
  spdlog::set_default_logger(spdlog::stderr_color_mt(program));
  if (format == "json") {
    spdlog::set_formatter(JsonLogFormatter(program));
  } else {
    spdlog::set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%^%l%$] %v");
  }
  spdlog::set_level(parsed);
  return true;
}

}  // namespace canopy::log
