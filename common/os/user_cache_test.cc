// UserCache remembers an account for its time to live, and never a failure.
#include "common/os/user_cache.h"

#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace canopy::os {
namespace {

class CountingLookup {
 public:
  absl::StatusOr<UserInfo> operator()(uint32_t uid) {
    ++calls;
    if (fail) {
      return absl::UnavailableError("name service down");
    }
    UserInfo u;
    u.uid = uid;
    u.name = absl::StrCat("user", uid, "-v", calls);
    return u;
  }
  int calls = 0;
  bool fail = false;
};

TEST(UserCacheTest, AnAccountIsRememberedForItsTimeToLiveAndAFailureNever) {
  CountingLookup lookup;
  absl::Time now = absl::FromUnixSeconds(1'000'000);
  UserCache cache(
      absl::Seconds(60), [&](uint32_t uid) { return lookup(uid); }, [&] { return now; });

  lookup.fail = true;
  EXPECT_EQ(cache.Find(1000).status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(cache.Find(1000).status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(lookup.calls, 2);  // not remembered

  lookup.fail = false;
  EXPECT_EQ(cache.Find(1000)->name, "user1000-v3");
  now += absl::Seconds(59);
  EXPECT_EQ(cache.Find(1000)->name, "user1000-v3");  // from memory
  EXPECT_EQ(cache.Find(1001)->name, "user1001-v4");  // another uid is its own entry
  EXPECT_EQ(lookup.calls, 4);

  now += absl::Seconds(1);  // 60 s after the first lookup: asked again
  EXPECT_EQ(cache.Find(1000)->name, "user1000-v5");
  EXPECT_EQ(lookup.calls, 5);
}

TEST(UserCacheTest, TheDefaultLookupIsTheSystemsAccount) {
  UserCache cache;
  absl::StatusOr<UserInfo> direct = LookupUser(getuid());
  absl::StatusOr<UserInfo> cached = cache.Find(getuid());
  ASSERT_TRUE(direct.ok() && cached.ok());
  EXPECT_EQ(cached->name, direct->name);
  EXPECT_EQ(cached->groups, direct->groups);
}

}  // namespace
}  // namespace canopy::os
