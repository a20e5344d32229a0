#include "ctl/canopyctl/options.h"

#include <stdio.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace canopy::ctl::canopyctl {
namespace {

TEST(CanopyctlOptionsTest, ControllerIsTakenOutAnywhere) {
  CommandLine line = SplitCommandLine({"nodes", "--controller", "h:1", "-p", "gpu"});
  EXPECT_EQ(line.controller, "h:1");
  EXPECT_EQ(line.args, (std::vector<std::string>{"nodes", "-p", "gpu"}));
  EXPECT_EQ(SplitCommandLine({"--controller=h:2", "ping"}).controller, "h:2");
}

// What bash offers after `canopyctl WORDS...` with the cursor on the last word.
std::string Complete(const std::string& script, const std::string& words) {
  const std::string path =
      ::testing::TempDir() + "/canopyctl-completion-" + std::to_string(getpid());
  std::ofstream(path) << script;
  const std::string command = "/bin/bash -c 'source " + path + " && COMP_WORDS=(" + words +
                              ") && COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) && _canopyctl && "
                              "echo \"${COMPREPLY[*]}\"' 2>&1";
  std::string out;
  if (FILE* p = popen(command.c_str(), "r")) {
    char buffer[4096];
    while (size_t n = fread(buffer, 1, sizeof(buffer), p)) {
      out.append(buffer, n);
    }
    pclose(p);
  }
  std::remove(path.c_str());
  return out;
}

// The script bash sources: commands first, then each command's options.
TEST(CanopyctlOptionsTest, BashCompletionOffersCommandsAndOptions) {
  const std::string script = BashCompletion();
  EXPECT_EQ(Complete(script, "canopyctl d"), "drain down\n");
  EXPECT_EQ(Complete(script, "canopyctl --controller h:1 to"), "topology\n");
  EXPECT_EQ(Complete(script, "canopyctl jobs --"), "--user --partition\n");
  EXPECT_EQ(Complete(script, "canopyctl install-links --f"), "--force\n");
  EXPECT_EQ(Complete(script, "canopyctl completion \"\""), "bash\n");  // an empty word
}

TEST(CanopyctlOptionsTest, CommandArguments) {
  absl::StatusOr<canopy::v1::ListNodesRequest> nodes = ParseNodesArgs({"-p", "gpu", "n[1-2]"});
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  EXPECT_EQ(nodes->partition(), "gpu");
  EXPECT_EQ(nodes->nodes(), "n[1-2]");
  EXPECT_EQ(ParseNodesArgs({"--partition"}).status().message(),
            "canopyctl nodes: --partition needs a partition name");
  EXPECT_EQ(ParseNodesArgs({"-x"}).status().message(), "canopyctl nodes: unknown option '-x'");
  EXPECT_EQ(ParseTopologyArgs({"gpu001"}).node(), "gpu001");

  absl::StatusOr<canopy::v1::UpdateNodeRequest> drain =
      ParseNodeUpdateArgs("drain", {"n1", "--reason=bad fan"});
  ASSERT_TRUE(drain.ok()) << drain.status();
  EXPECT_EQ(drain->reason(), "bad fan");
  EXPECT_EQ(ParseNodeUpdateArgs("down", {"--reason"}).status().message(),
            "canopyctl down: --reason needs a text");
  EXPECT_EQ(ParseNodeUpdateArgs("drain", {}).status().message(),
            "canopyctl drain: name the nodes, e.g. canopyctl drain gpu[001-004] --reason \"bad "
            "fan\"");
  EXPECT_EQ(ParseNodeUpdateArgs("resume", {}).status().message(),
            "canopyctl resume: name the nodes, e.g. canopyctl resume gpu[001-004]");

  EXPECT_EQ(ParseJobsArgs({"-u", "alice"})->user_name(), "alice");
  EXPECT_EQ(ParseJobsArgs({"--user"}).status().message(),
            "canopyctl jobs: unknown argument '--user'");
  EXPECT_EQ(*ParseJobArgs({"42"}), 42u);
  EXPECT_FALSE(ParseJobArgs({"42", "43"}).ok());
  EXPECT_EQ(ParseCancelArgs({"1", "2"})->job_ids_size(), 2);
  EXPECT_EQ(ParseCancelArgs({"x"}).status().message(), "canopyctl cancel: 'x' is not a job id");
  EXPECT_EQ(ParseCancelArgs({}).status().message(), "canopyctl cancel: give the job ids to cancel");
}

}  // namespace
}  // namespace canopy::ctl::canopyctl
