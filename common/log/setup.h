// One logging set-up for canopyd and canopy-agent: spdlog to stderr, timestamped, at the level
// given by --log_level (trace, debug, info, warn, error). Call once from main().
#pragma once

#include <string>

#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/spdlog.h"

namespace canopy::log {

inline void SetUpLogging(const std::string& program, const std::string& level) {
  spdlog::set_default_logger(spdlog::stderr_color_mt(program));
  spdlog::set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%^%l%$] %v");
  spdlog::set_level(spdlog::level::from_str(level));
}

}  // namespace canopy::log
