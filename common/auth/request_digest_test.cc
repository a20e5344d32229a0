#include "common/auth/request_digest.h"

#include "canopy/v1/controller.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::auth {
namespace {

TEST(RequestDigestTest, NamesTheRequestTypeAndHashesItsContent) {
  canopy::v1::GetJobRequest a;
  a.set_job_id(7);
  EXPECT_THAT(RequestDigest(a),
              ::testing::MatchesRegex("canopy-rpc-1 canopy\\.v1\\.GetJobRequest [0-9a-f]{64}"));
  canopy::v1::GetJobRequest same;
  same.set_job_id(7);
  EXPECT_EQ(RequestDigest(a), RequestDigest(same));
  canopy::v1::GetJobRequest other;
  other.set_job_id(8);
  EXPECT_NE(RequestDigest(a), RequestDigest(other));
}

TEST(RequestDigestTest, EmptyRequestsOfTwoMethodsDiffer) {
  // A credential for a harmless Ping must not pass for a Reconfigure: both are empty.
  EXPECT_NE(RequestDigest(canopy::v1::PingRequest()),
            RequestDigest(canopy::v1::ReconfigureRequest()));
}

TEST(RequestDigestTest, MapOrderDoesNotMatter) {
  canopy::v1::SubmitJobRequest a;
  canopy::v1::SubmitJobRequest b;
  for (int i = 0; i < 50; ++i) {
    (*a.mutable_spec()->mutable_environment())["K" + std::to_string(i)] = "v";
    (*b.mutable_spec()->mutable_environment())["K" + std::to_string(49 - i)] = "v";
  }
  EXPECT_EQ(RequestDigest(a), RequestDigest(b));
  (*b.mutable_spec()->mutable_environment())["K0"] = "changed";
  EXPECT_NE(RequestDigest(a), RequestDigest(b));
}

}  // namespace
}  // namespace canopy::auth
