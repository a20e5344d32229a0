// JsonMessageFlag: spdlog's %* in canopyd's and canopy-agent's JSON log lines (--log_format=json,
// setup.h): the message as the inside of a JSON string (quotes, backslashes and control
// characters escaped), so every line is one JSON object a log shipper can parse.
#pragma once

#include <cstdio>
#include <ctime>
#include <memory>

#include "spdlog/pattern_formatter.h"

namespace canopy::log {

class JsonMessageFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    for (char c : msg.payload) {
      switch (c) {
        case '"':
          dest.append(std::string_view("\\\""));
          break;
        case '\\':
          dest.append(std::string_view("\\\\"));
          break;
        case '\n':
          dest.append(std::string_view("\\n"));
          break;
        case '\t':
          dest.append(std::string_view("\\t"));
          break;
        case '\r':
          dest.append(std::string_view("\\r"));
          break;
        default:
          if (static_cast<unsigned char>(c) < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof(escaped), "\\u%04x", static_cast<unsigned char>(c));
            dest.append(std::string_view(escaped));
          } else {
            dest.push_back(c);
          }
      }
    }
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<JsonMessageFlag>();
  }
};

// A formatter that writes each record as {"time", "level", "program", "msg"}.
inline std::unique_ptr<spdlog::formatter> JsonLogFormatter(const std::string& program) {
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<JsonMessageFlag>('*').set_pattern(
      R"({"time":"%Y-%m-%dT%H:%M:%S.%f%z","level":"%l","program":")" + program +
      R"(","msg":"%*"})");
  return formatter;
}

}  // namespace canopy::log
