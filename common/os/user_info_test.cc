#include "common/os/user_info.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::os {
namespace {

using ::testing::Contains;

// Whether the group database lists `user` as a member of `gid` (checked through getgrgid, a
// different API from the getgrouplist the code uses). Single-threaded test: getgrgid is fine.
bool ListsMember(const group* g, const std::string& user) {
  if (g == nullptr || g->gr_mem == nullptr) {
    return false;
  }
  for (char** m = g->gr_mem; *m != nullptr; ++m) {
    if (user == *m) {
      return true;
    }
  }
  return false;
}

bool GroupListsMember(uint32_t gid, const std::string& user) {
  return ListsMember(getgrgid(static_cast<gid_t>(gid)), user);
}

TEST(UserInfoTest, LooksUpTheCurrentUser) {
  const passwd* pw = getpwuid(getuid());
  ASSERT_NE(pw, nullptr) << "the test's own uid has no passwd entry";
  const std::string expected_name = pw->pw_name;
  const uint32_t expected_gid = pw->pw_gid;
  const std::string expected_home = pw->pw_dir;

  absl::StatusOr<UserInfo> info = LookupUser(getuid());
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->uid, getuid());
  EXPECT_EQ(info->name, expected_name);
  EXPECT_EQ(info->gid, expected_gid);
  EXPECT_EQ(info->home_dir, expected_home);
  EXPECT_THAT(info->groups, Contains(expected_gid));
  EXPECT_TRUE(std::is_sorted(info->groups.begin(), info->groups.end()));
  EXPECT_EQ(std::adjacent_find(info->groups.begin(), info->groups.end()), info->groups.end());
  // Every group but the primary one must name the user as a member.
  for (uint32_t g : info->groups) {
    if (g != expected_gid) {
      EXPECT_TRUE(GroupListsMember(g, expected_name)) << "group " << g;
    }
  }
  // And every group that names the user must be there.
  setgrent();
  while (const group* g = getgrent()) {
    if (ListsMember(g, expected_name)) {
      EXPECT_THAT(info->groups, Contains(static_cast<uint32_t>(g->gr_gid))) << g->gr_name;
    }
  }
  endgrent();
}

TEST(UserInfoTest, LookupByNameAgreesWithLookupByUid) {
  absl::StatusOr<UserInfo> by_uid = LookupUser(getuid());
  ASSERT_TRUE(by_uid.ok()) << by_uid.status();
  absl::StatusOr<UserInfo> by_name = LookupUserByName(by_uid->name);
  ASSERT_TRUE(by_name.ok()) << by_name.status();
  EXPECT_EQ(by_name->uid, by_uid->uid);
  EXPECT_EQ(by_name->gid, by_uid->gid);
  EXPECT_EQ(by_name->groups, by_uid->groups);
  EXPECT_EQ(by_name->home_dir, by_uid->home_dir);
}

TEST(UserInfoTest, RootIsUidZero) {
  absl::StatusOr<UserInfo> root = LookupUserByName("root");
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(root->uid, 0u);
  EXPECT_EQ(root->name, "root");
}

TEST(UserInfoTest, UnknownUidIsNotFound) {
  const uint32_t uid = 3999999999u;
  ASSERT_EQ(getpwuid(uid), nullptr) << "uid " << uid << " exists on this machine";
  absl::StatusOr<UserInfo> info = LookupUser(uid);
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(info.status().message(), "no such user: uid 3999999999");
}

TEST(UserInfoTest, UnknownNameIsNotFound) {
  absl::StatusOr<UserInfo> info = LookupUserByName("canopy-no-such-user");
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(info.status().message(), "no such user: user 'canopy-no-such-user'");
}

TEST(UserInfoTest, GroupNameAgreesWithGetgrgid) {
  const group* g = getgrgid(getgid());
  ASSERT_NE(g, nullptr) << "the test's own gid has no group entry";
  const std::string expected = g->gr_name;
  absl::StatusOr<std::string> name = LookupGroupName(getgid());
  ASSERT_TRUE(name.ok()) << name.status();
  EXPECT_EQ(*name, expected);
  EXPECT_EQ(LookupGroupName(0).value_or(""), std::string(getgrgid(0)->gr_name));
  EXPECT_EQ(LookupGroupName(4000000123u).status().code(), absl::StatusCode::kNotFound);
}

TEST(UserInfoTest, EmptyNameIsInvalid) {
  EXPECT_EQ(LookupUserByName("").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace canopy::os
