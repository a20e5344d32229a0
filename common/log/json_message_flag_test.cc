#include "common/log/json_message_flag.h"

#include <memory>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spdlog/logger.h"
#include "spdlog/sinks/ostream_sink.h"

namespace canopy::log {
namespace {

using ::testing::EndsWith;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

// Every line is one JSON object, whatever the message holds.
TEST(JsonLogTest, EachRecordIsOneJsonObjectWithTheMessageEscaped) {
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  spdlog::logger logger("t", sink);
  logger.set_formatter(JsonLogFormatter("canopyd"));
  logger.warn("job {}: \"quoted\" path C:\\x\nsecond line\ttab \x01", 7);
  const std::string line = out.str();
  EXPECT_THAT(line, StartsWith("{\"time\":\""));
  EXPECT_THAT(
      line,
      MatchesRegex(R"(\{"time":"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+[-+][0-9]{2}:[0-9]{2}",.*)"));
  EXPECT_THAT(line, EndsWith("\",\"level\":\"warning\",\"program\":\"canopyd\",\"msg\":\"job 7: "
                             "\\\"quoted\\\" path C:\\\\x\\nsecond line\\ttab \\u0001\"}\n"));
  EXPECT_EQ(line.find('\n'), line.size() - 1);  // one line
}

}  // namespace
}  // namespace canopy::log
