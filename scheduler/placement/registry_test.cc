// Tests of the placement policy registry.
#include "scheduler/placement/registry.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::placement {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(RegistryTest, BuiltinPolicies) {
  for (absl::string_view name :
       {"placement/canopy", "placement/first_fit", "placement/slurm_tree"}) {
    absl::StatusOr<std::unique_ptr<PlacementPolicy>> policy = MakePlacementPolicy(name);
    ASSERT_TRUE(policy.ok()) << policy.status();
    EXPECT_EQ((*policy)->name(), name);
  }
  EXPECT_EQ(kDefaultPlacementPolicy, "placement/canopy");
}

TEST(RegistryTest, UnknownNameListsTheKnownOnes) {
  absl::StatusOr<std::unique_ptr<PlacementPolicy>> policy = MakePlacementPolicy("placement/nope");
  EXPECT_EQ(policy.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(policy.status().message(),
              HasSubstr("unknown placement policy 'placement/nope'; known: placement/canopy, "
                        "placement/first_fit, placement/slurm_tree"));
}

TEST(RegistryTest, RegisterChecksNames) {
  PlacementPolicyRegistry registry;
  RegisterBuiltinPlacementPolicies(registry);
  EXPECT_THAT(registry.names(),
              ElementsAre("placement/canopy", "placement/first_fit", "placement/slurm_tree"));
  auto factory = [] { return std::unique_ptr<PlacementPolicy>(); };
  EXPECT_EQ(registry.Register("placement/canopy", factory).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(registry.Register("canopy", factory).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(registry.Register("placement/custom", factory).ok());
}

}  // namespace
}  // namespace canopy::placement
