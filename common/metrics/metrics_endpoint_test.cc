#include "common/metrics/metrics_endpoint.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::metrics {
namespace {

using ::testing::HasSubstr;

// A taken address is an error naming the setting and the address, not an exception out of the
// daemon's start.
TEST(MetricsEndpointTest, AnAddressInUseIsAnErrorNamingIt) {
  absl::StatusOr<std::unique_ptr<MetricsEndpoint>> first =
      MetricsEndpoint::Start("metrics_listen", "127.0.0.1:0", {});
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_GT((*first)->port(), 0);
  const std::string taken = "127.0.0.1:" + std::to_string((*first)->port());
  absl::StatusOr<std::unique_ptr<MetricsEndpoint>> second =
      MetricsEndpoint::Start("--metrics_listen", taken, {});
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(second.status().message(), HasSubstr("--metrics_listen: cannot listen on " + taken));
}

}  // namespace
}  // namespace canopy::metrics
