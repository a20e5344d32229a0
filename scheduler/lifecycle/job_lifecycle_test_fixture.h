// The fixture of the lifecycle's state-machine tests (job_lifecycle_test.cc, steps_test.cc,
// restore_test.cc): a JobLifecycle on the two-leaf test cluster (gpu[1-4], 4 GPUs each) with a
// fake clock, driven as canopyd drives it, and helpers to submit, schedule and report.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/lifecycle/job_lifecycle.h"
#include "scheduler/lifecycle/test_time.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/test_cluster.h"

namespace canopy::lifecycle {

using core::JobState;

class JobLifecycleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::TestCluster cluster = testing::LoadTestCluster(testing::kTwoLeafCluster);
    ASSERT_NE(cluster.config, nullptr);
    config_ = cluster.config;
    topology_ = cluster.topology;
    Reset();
    alice_.authenticated = true;
    alice_.uid = 1001;
    alice_.gid = 1001;
    alice_.user_name = "alice";
    bob_ = alice_;
    bob_.uid = 1002;
    bob_.user_name = "bob";
  }

  void Reset() {
    absl::StatusOr<std::unique_ptr<JobLifecycle>> lc =
        JobLifecycle::Create(config_, topology_, clock_);
    ASSERT_TRUE(lc.ok()) << lc.status();
    jobs_ = *std::move(lc);
  }

  state::NodeRecord Node(int i, bool up = true) {
    state::NodeRecord n;
    n.id = core::NodeId(i);
    n.name = topology_->node_name(n.id);
    n.ever_registered = true;
    n.connected = up;
    n.not_responding = !up;
    for (int g = 0; g < 4; ++g) {
      state::GpuStatus gpu;
      gpu.index = g;
      n.registration.gpus.push_back(gpu);
    }
    return n;
  }

  void AllNodesUp() {
    Effects e;
    for (int i = 0; i < 4; ++i) {
      jobs_->NodeChanged(Node(i), e);
    }
  }

  static SubmitRequest Request(int nodes, int gpus, const std::string& script = "#!/bin/sh\n") {
    SubmitRequest req;
    core::JobSpec& spec = req.spec.Mutable();
    spec.min_nodes = nodes;
    spec.gpus_per_node = gpus;
    spec.script = script;
    return req;
  }

  uint32_t Submit(int nodes, int gpus, const std::string& script = "#!/bin/sh\ntrue\n",
                  const Caller* who = nullptr) {
    Effects e;
    absl::StatusOr<SubmitAnswer> r =
        jobs_->Submit(Request(nodes, gpus, script), who ? *who : alice_, e);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->job_id.value() : 0;
  }

  Effects Schedule() {
    Effects e;
    jobs_->Schedule(e);
    return e;
  }

  Effects Tick() {
    Effects e;
    jobs_->Tick(e);
    return e;
  }

  Effects Report(int node, uint32_t job, JobPhase phase, int exit_code = 0, int signal = 0,
                 uint32_t run_id = 0) {
    JobReport r;
    r.job = core::JobId(job);
    r.phase = phase;
    r.exit_code = exit_code;
    r.exit_signal = signal;
    r.run_id = run_id;
    Effects e;
    jobs_->JobReported(core::NodeId(node), r, e);
    return e;
  }

  const core::Job& Job(uint32_t id) {
    const core::Job* job = jobs_->Find(core::JobId(id));
    EXPECT_NE(job, nullptr) << id;
    return *job;
  }

  std::vector<std::string> Nodes(uint32_t id) {
    std::vector<std::string> names;
    for (const core::NodeShare& share : Job(id).allocation.nodes) {
      names.push_back(topology_->node_name(share.node));
    }
    return names;
  }

  int FreeGpus(int node) { return jobs_->capacity().node(core::NodeId(node)).free_gpus; }

  // Nodes a list of messages of one kind goes to.
  template <typename Message>
  static std::vector<int> Targets(const Effects& e) {
    std::vector<int> out;
    for (const OutgoingMessage& m : e.messages) {
      if (std::holds_alternative<Message>(m.message)) {
        out.push_back(m.node.value());
      }
    }
    return out;
  }
  template <typename Message>
  static const Message& Nth(const Effects& e, size_t n) {
    for (const OutgoingMessage& m : e.messages) {
      if (const Message* found = std::get_if<Message>(&m.message); found != nullptr) {
        if (n-- == 0) {
          return *found;
        }
      }
    }
    ADD_FAILURE() << "fewer messages of that kind";
    static const Message kNone{};
    return kNone;
  }

  // Starts a job on `nodes` nodes and confirms it: RUNNING on gpu1, gpu2, ...
  uint32_t StartRunning(int nodes = 2) {
    AllNodesUp();
    const uint32_t id = Submit(nodes, 4);
    Schedule();
    for (int i = 0; i < nodes; ++i) {
      Report(i, id, JobPhase::kLaunched);
    }
    EXPECT_EQ(Job(id).state, JobState::kRunning);
    return id;
  }

  testing::FakeClock clock_{kT0};
  std::shared_ptr<const config::ClusterConfig> config_;
  std::shared_ptr<const topology::Topology> topology_;
  std::unique_ptr<JobLifecycle> jobs_;
  Caller alice_, bob_;
};

}  // namespace canopy::lifecycle
