// FrontEndTest: the fixture of the integration tests that drive a LocalCluster through the
// Slurm front ends (sbatch, squeue, scontrol, ...): a work directory for submissions, canopyd
// and one agent with fake GPUs, and the few calls every such test makes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "tests/integration/local_cluster.h"

namespace canopy::testing {

class FrontEndTest : public ::testing::Test {
 protected:
  explicit FrontEndTest(const std::string& config_yaml) : cluster_(config_yaml) {}

  // Starts canopyd and an agent hosting `nodes` (a hostlist of `count` nodes, `fake_gpus` GPUs
  // each) and waits until sinfo shows all of them idle.
  ::testing::AssertionResult StartCluster(const std::string& nodes, int count, int fake_gpus) {
    work_ = cluster_.dir() + "/work";
    std::filesystem::create_directories(work_);
    if (absl::Status s = cluster_.StartController(); !s.ok()) {
      return ::testing::AssertionFailure() << s << "\n" << cluster_.ControllerLog();
    }
    std::vector<std::string> flags = {"--spool_dir", cluster_.dir() + "/spool"};
    if (fake_gpus > 0) {
      flags.insert(flags.end(), {"--fake_gpus", absl::StrCat(fake_gpus)});
    }
    if (absl::Status s = cluster_.StartAgent(nodes, flags); !s.ok()) {
      return ::testing::AssertionFailure() << s;
    }
    const bool up = WaitUntil([&] { return cluster_.IdleNodes() == count; }, absl::Seconds(30));
    return up ? ::testing::AssertionSuccess()
              : ::testing::AssertionFailure() << "nodes did not come up\n"
                                              << Diagnostics();
  }

  // sbatch --parsable ARGS in the work directory: the job id (0, and a failure, if refused).
  uint32_t Sbatch(const std::vector<std::string>& args) {
    std::vector<std::string> all = {"--parsable"};
    all.insert(all.end(), args.begin(), args.end());
    const CommandResult r = cluster_.FrontEndIn("sbatch", all, work_);
    uint32_t id = 0;
    if (r.exit_code != 0 || !absl::SimpleAtoi(absl::StripAsciiWhitespace(r.out), &id)) {
      ADD_FAILURE() << "sbatch failed (" << r.exit_code << "): " << r.out << r.err;
    }
    return id;
  }

  // squeue -h -t all -j ID -o FORMAT, trimmed.
  std::string Squeue(uint32_t id, const std::string& format) {
    return std::string(absl::StripAsciiWhitespace(
        cluster_.FrontEnd("squeue", {"-h", "-t", "all", "-j", absl::StrCat(id), "-o", format})
            .out));
  }
  std::string State(uint32_t id) { return Squeue(id, "%T"); }

  CommandResult Scontrol(const std::vector<std::string>& args) {
    return cluster_.FrontEnd("scontrol", args);
  }

  // A file of the work directory.
  std::string Work(const std::string& name) { return ReadFile(work_ + "/" + name); }

  std::string Diagnostics() {
    return absl::StrCat("canopyd log:\n", cluster_.ControllerLog(), "\nagent log:\n",
                        cluster_.AgentLog());
  }

  LocalCluster cluster_;
  std::string work_;
};

}  // namespace canopy::testing
