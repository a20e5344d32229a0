// The user's login environment (su - <user>), for jobs that ask the node for it.
#include "agent/runtime/login_environment.h"

#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::agent::runtime {
namespace {

using namespace std::string_literals;  // NOLINT: "..."s keeps the NULs
using ::testing::Contains;
using ::testing::Key;
using ::testing::Not;

TEST(LoginEnvironmentTest, WhatFollowsTheMarkerIsTheEnvironmentLessTheShellsOwn) {
  const std::string output =
      "Welcome to the cluster!\nPWD=/not/this\n"
      "\n__CANOPY_LOGIN_ENVIRONMENT__\n"
      "HOME=/home/alice\0PATH=/opt/bin:/usr/bin\0MULTI=a\nb\0"
      "PWD=/home/alice\0SHLVL=1\0_=/usr/bin/env\0=junk\0noequals\0"
      "\n__CANOPY_LOGIN_ENVIRONMENT_END__\nBye\n"s;
  absl::StatusOr<slurm::Environment> env = ParseLoginEnvironment(output);
  ASSERT_TRUE(env.ok()) << env.status();
  EXPECT_EQ(*env, (slurm::Environment{
                      {"HOME", "/home/alice"}, {"PATH", "/opt/bin:/usr/bin"}, {"MULTI", "a\nb"}}));
  EXPECT_EQ(ParseLoginEnvironment("no marker here").status().code(), absl::StatusCode::kNotFound);
  // Cut short (killed, or a profile that exited early): not an environment.
  EXPECT_EQ(ParseLoginEnvironment("\n__CANOPY_LOGIN_ENVIRONMENT__\nHOME=/h"s).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(LoginEnvironmentTest, RootsLoginShellGivesItsHomeAndPath) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "su needs root";
  }
  setenv("CANOPY_LOGIN_TEST_MARK", "1", 1);
  absl::StatusOr<std::unique_ptr<ChildReaper>> reaper = ChildReaper::Create();
  ASSERT_TRUE(reaper.ok());
  const passwd* root = getpwuid(0);
  ASSERT_NE(root, nullptr);
  absl::StatusOr<slurm::Environment> env = LoadLoginEnvironment(0, **reaper, absl::Seconds(10));
  ASSERT_TRUE(env.ok()) << env.status();
  EXPECT_EQ(env->at("HOME"), root->pw_dir);
  EXPECT_THAT(*env, Contains(Key("PATH")));
  EXPECT_EQ(env->at("USER"), root->pw_name);
  EXPECT_THAT(*env, Not(Contains(Key("SHLVL"))));
  // Nothing of the agent's own environment leaks in.
  EXPECT_THAT(*env, Not(Contains(Key("CANOPY_LOGIN_TEST_MARK"))));
  // A uid the node does not know: no shell at all.
  EXPECT_EQ(LoadLoginEnvironment(4'000'000'000u, **reaper, absl::Seconds(10)).status().code(),
            absl::StatusCode::kNotFound);

  LoginEnvironmentCache cache;
  absl::StatusOr<slurm::Environment> first = cache.Get(0, **reaper, absl::Seconds(10));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(*first, *env);
}

}  // namespace
}  // namespace canopy::agent::runtime
