// A lifecycle on a small cluster with a queue policy (QOS, limits, preemption), driven the way
// canopyd drives it: every batch of effects is committed to an in-memory store, agents are
// simulated by Report. Shared by qos_limits_test.cc and preemption_test.cc.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "scheduler/fairshare/association_tree.h"
#include "scheduler/lifecycle/job_lifecycle.h"
#include "scheduler/lifecycle/test_time.h"
#include "scheduler/limits/qos.h"
#include "scheduler/persistence/in_memory_store.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/test_cluster.h"

namespace canopy::lifecycle::policy_testing {

// 4 nodes x 4 GPUs on two leaves (gpu[1-2], gpu[3-4]); partitions "low" (tier 1) and "high"
// (tier 2) on every node, and "restricted" (gpu1, AllowAccounts=nlp). `policy` is appended (YAML
// scheduling sections).
inline std::string PolicyCluster(absl::string_view policy) {
  return absl::StrCat(R"yaml(
cluster_name: test
kill_wait: 5s
launch_timeout: 10s
nodes:
  - names: gpu[1-4]
    cpus: 8
    memory_mib: 1000
    gpus: {type: h100, count: 4}
partitions:
  - name: low
    nodes: ALL
    default: true
    priority_tier: 1
  - name: high
    nodes: ALL
    priority_tier: 2
  - name: restricted
    nodes: gpu1
    allow_accounts: [nlp]
topology_plugin: topology/tree
topology:
  switches:
    - name: leaf1
      nodes: gpu[1-2]
    - name: leaf2
      nodes: gpu[3-4]
    - name: spine
      switches: leaf[1-2]
)yaml",
                      policy);
}

class PolicyTest : public ::testing::Test {
 public:
  // Starts a controller on PolicyCluster(policy) with every node up.
  void Start(absl::string_view policy) {
    ::canopy::testing::TestCluster cluster =
        ::canopy::testing::LoadTestCluster(PolicyCluster(policy));
    ASSERT_NE(cluster.config, nullptr);
    config_ = cluster.config;
    topology_ = cluster.topology;
    clock_.Set(kT0);
    alice_.authenticated = true;
    alice_.uid = 1001;
    alice_.user_name = "alice";
    bob_ = alice_;
    bob_.uid = 1002;
    bob_.user_name = "bob";
    root_ = alice_;
    root_.uid = 0;
    root_.user_name = "root";
    root_.is_operator = true;
    absl::StatusOr<std::unique_ptr<JobLifecycle>> lc =
        JobLifecycle::Create(config_, topology_, clock_);
    ASSERT_TRUE(lc.ok()) << lc.status();
    jobs_ = *std::move(lc);
    Effects e;
    ASSERT_TRUE(jobs_->RestoreAccounting(*store_.LoadAccounting(), e).ok());
    ASSERT_TRUE(jobs_->Restore(*store_.LoadJobs(), e).ok());
    Commit(e);
    for (int i = 0; i < 4; ++i) {
      state::NodeRecord n;
      n.id = core::NodeId(i);
      n.name = topology_->node_name(n.id);
      n.ever_registered = true;
      n.connected = true;
      for (int g = 0; g < 4; ++g) {
        state::GpuStatus gpu;
        gpu.index = g;
        n.registration.gpus.push_back(gpu);
      }
      Effects node;
      jobs_->NodeChanged(n, node);
      Commit(node);
    }
  }

  void Commit(const Effects& e) {
    persistence::Mutations m;
    for (core::JobId id : e.dirty) {
      m.job_upserts.push_back(std::make_shared<const core::Job>(*jobs_->Find(id)));
    }
    m.next_job_id = jobs_->next_job_id();
    if (e.associations_changed) {
      m.associations = jobs_->AssociationsToSave();
    }
    if (e.usage_changed) {
      m.usage = jobs_->UsageToSave();
    }
    if (e.qos_changed) {
      m.qos = jobs_->qos().specs();
    }
    ASSERT_TRUE(store_.Commit(m).ok());
    last_ = e;
  }

  // QOS from sacctmgr words: {"high", "Priority=100", "Preempt=normal"}.
  absl::Status SetQos(const std::vector<std::vector<std::string>>& qos) {
    std::vector<limits::QosSpec> specs;
    for (const std::vector<std::string>& words : qos) {
      limits::QosSpec spec;
      spec.name = words[0];
      for (size_t i = 1; i < words.size(); ++i) {
        const size_t eq = words[i].find('=');
        absl::Status st =
            limits::ApplyQosOption(words[i].substr(0, eq), words[i].substr(eq + 1), spec);
        if (!st.ok()) {
          return st;
        }
      }
      specs.push_back(std::move(spec));
    }
    Effects e;
    absl::Status st = jobs_->SetQos(std::move(specs), root_, e);
    Commit(e);
    return st;
  }

  absl::Status SetAssociations(std::vector<fairshare::AssociationSpec> specs) {
    absl::StatusOr<fairshare::AssociationTree> tree =
        fairshare::AssociationTree::Build(std::move(specs));
    if (!tree.ok()) {
      return tree.status();
    }
    Effects e;
    absl::Status st = jobs_->SetAssociations(*std::move(tree), root_, e);
    Commit(e);
    return st;
  }

  // What a test job asks for: Ask().Gpus(4).Qos("high").
  struct Ask {
    int nodes = 1;
    int gpus = 1;
    std::string qos;
    std::string partition;
    std::string account;
    absl::Duration time = absl::Minutes(50);
    bool requeue = true;
    std::function<void(core::JobSpec&)> edit;  // anything else, applied last
    Ask& Nodes(int n) {
      nodes = n;
      return *this;
    }
    Ask& Gpus(int n) {
      gpus = n;
      return *this;
    }
    Ask& Qos(std::string q) {
      qos = std::move(q);
      return *this;
    }
    Ask& Partition(std::string p) {
      partition = std::move(p);
      return *this;
    }
    Ask& Account(std::string a) {
      account = std::move(a);
      return *this;
    }
    Ask& Time(absl::Duration t) {
      time = t;
      return *this;
    }
    Ask& NoRequeue() {
      requeue = false;
      return *this;
    }
    Ask& With(std::function<void(core::JobSpec&)> f) {
      edit = std::move(f);
      return *this;
    }
  };
  absl::StatusOr<uint32_t> TrySubmit(const Caller& who, const Ask& ask) {
    SubmitRequest req;
    core::JobSpec& spec = req.spec.Mutable();
    spec.min_nodes = ask.nodes;
    spec.gpus_per_node = ask.gpus;
    spec.script = "#!/bin/sh\n";
    spec.qos = ask.qos;
    spec.partition = ask.partition;
    spec.account = ask.account;
    spec.time_limit = ask.time;
    spec.requeue = ask.requeue;
    if (ask.edit) {
      ask.edit(spec);
    }
    Effects e;
    absl::StatusOr<SubmitAnswer> r = jobs_->Submit(req, who, e);
    Commit(e);
    if (!r.ok()) {
      return r.status();
    }
    return r->job_id.value();
  }
  uint32_t Submit(const Caller& who, const Ask& ask) {
    absl::StatusOr<uint32_t> id = TrySubmit(who, ask);
    EXPECT_TRUE(id.ok()) << id.status();
    return id.value_or(0);
  }

  void Schedule() {
    Effects e;
    jobs_->Schedule(e);
    Commit(e);
  }

  // Every node of the job reports `phase`.
  void Report(uint32_t job, JobPhase phase) {
    const core::Job& j = *jobs_->Find(core::JobId(job));
    for (const core::NodeShare& share : std::vector<core::NodeShare>(j.allocation.nodes)) {
      JobReport r;
      r.job = core::JobId(job);
      r.phase = phase;
      r.run_id = jobs_->Find(core::JobId(job))->run_id;
      Effects e;
      jobs_->JobReported(share.node, r, e);
      Commit(e);
    }
  }
  // Schedules, and confirms the launch of every job that started.
  void ScheduleAndRun() {
    Effects e;
    jobs_->Schedule(e);
    Commit(e);
    for (const auto& [id, job] : jobs_->jobs().jobs()) {
      if (job->state == core::JobState::kConfiguring) {
        Report(id.value(), JobPhase::kLaunched);
      }
    }
  }

  void AdvanceTo(absl::Time t) {
    while (jobs_->NextDeadline() <= t) {
      clock_.Set(std::max(clock_.Now(), jobs_->NextDeadline()));
      Effects e;
      jobs_->Tick(e);
      Commit(e);
    }
    clock_.Set(t);
  }

  const core::Job& Job(uint32_t id) { return *jobs_->Find(core::JobId(id)); }

  std::shared_ptr<const config::ClusterConfig> config_;
  std::shared_ptr<const topology::Topology> topology_;
  ::canopy::testing::FakeClock clock_;
  persistence::InMemoryStore store_;
  std::unique_ptr<JobLifecycle> jobs_;
  Caller alice_, bob_, root_;
  Effects last_;
};

}  // namespace canopy::lifecycle::policy_testing
