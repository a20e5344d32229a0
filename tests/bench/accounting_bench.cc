// sshare and sprio at target scale (issue: queue policy): 1,000 user associations under 50
// accounts, each with usage; sprio over 10,000 pending jobs of those users. Each benchmark is
// what one command costs apart from the RPC: the controller building its answer from the
// snapshot's fair-share state (proto_convert_accounts) plus the command rendering it. Target:
// < 50 ms each. Results: docs/performance.md.
//   taskset -c 1 ./build/tests/bench/canopy_accounting_bench
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "common/config/cluster_config.h"
#include "ctl/sprio/options.h"
#include "ctl/sprio/render.h"
#include "ctl/sshare/options.h"
#include "ctl/sshare/render.h"
#include "scheduler/fairshare/fair_share.h"
#include "scheduler/lifecycle/accounting.h"
#include "scheduler/server/proto_convert_accounts.h"

namespace canopy {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);
constexpr int kAccounts = 50;
constexpr int kUsersPerAccount = 20;

std::string User(int a, int u) { return absl::StrCat("user", a, "_", u); }

// The cluster: one node is enough (the factors only need totals); the policy and the tree.
std::shared_ptr<const config::ClusterConfig> Config() {
  std::string yaml = R"(cluster_name: bench
nodes:
  - names: n[1-100]
    cpus: 64
    gpus: 8
partitions:
  - {name: gpu, nodes: ALL, default: true}
priority:
  type: priority/multifactor
  weight_fairshare: 10000
  weight_age: 1000
  weight_job_size: 1000
accounts:
)";
  for (int a = 0; a < kAccounts; ++a) {
    absl::StrAppend(&yaml, "  - name: acct", a, "\n    fairshare: ", 1 + a % 7, "\n    users: [");
    for (int u = 0; u < kUsersPerAccount; ++u) {
      absl::StrAppend(&yaml, u > 0 ? ", " : "", User(a, u));
    }
    yaml += "]\n";
  }
  absl::StatusOr<config::ClusterConfig> c = config::ParseCanopyYaml(yaml, "bench.yaml", false);
  if (!c.ok()) {
    std::abort();
  }
  return std::make_shared<const config::ClusterConfig>(*std::move(c));
}

// Accounting with the config's tree and a usage for every user.
struct Fixture {
  Fixture() : config(Config()), accounting(config, kNow) {
    absl::StatusOr<fairshare::AssociationTree> tree =
        fairshare::AssociationTree::FromFlatFile(config->scheduling.accounting.accounts, nullptr);
    if (!tree.ok()) {
      std::abort();
    }
    accounting.SetTree(*std::move(tree), kNow);
    std::mt19937 rng(7);
    persistence::UsageState usage;
    usage.ledger.as_of = kNow;
    for (int a = 0; a < kAccounts; ++a) {
      for (int u = 0; u < kUsersPerAccount; ++u) {
        usage.ledger.entries.push_back(
            {absl::StrCat("acct", a), User(a, u), static_cast<double>(rng() % 1'000'000)});
      }
    }
    std::sort(usage.ledger.entries.begin(), usage.ledger.entries.end(),
              [](const auto& x, const auto& y) {
                return std::tie(x.account, x.user) < std::tie(y.account, y.user);
              });
    usage.charged_through = kNow;
    accounting.RestoreUsage(usage, kNow);
    for (uint32_t i = 1; i <= 10000; ++i) {
      core::Job j;
      j.id = core::JobId(i);
      const int a = static_cast<int>(rng() % kAccounts);
      j.spec.Mutable().account = absl::StrCat("acct", a);
      j.user_name = User(a, static_cast<int>(rng() % kUsersPerAccount));
      j.partition = "gpu";
      j.resources.min_nodes = 1 + static_cast<int>(rng() % 8);
      j.resources.cpus_per_node = 8;
      j.submit_time = j.eligible_time = kNow - absl::Seconds(rng() % 86400);
      jobs.push_back(std::move(j));
    }
  }
  std::shared_ptr<const config::ClusterConfig> config;
  lifecycle::Accounting accounting;
  std::vector<core::Job> jobs;
};

Fixture& F() {
  static Fixture* f = new Fixture();
  return *f;
}

// Fair Tree over 1,000 users (what every PriorityCalcPeriod costs).
void BM_FairTree1000Users(benchmark::State& state) {
  Fixture& f = F();
  for (auto _ : state) {
    f.accounting.RecomputeShares(kNow);
    benchmark::DoNotOptimize(f.accounting.shares().data());
  }
}
BENCHMARK(BM_FairTree1000Users)->Unit(benchmark::kMillisecond);

// sshare -a -l: the answer built from the fair-share state, then rendered.
void BM_SshareAll1000Users(benchmark::State& state) {
  Fixture& f = F();
  absl::StatusOr<ctl::sshare::SshareOptions> options = ctl::sshare::ParseSshareArgs({"-a", "-l"});
  if (!options.ok()) {
    std::abort();
  }
  size_t bytes = 0;
  for (auto _ : state) {
    canopy::v1::GetSharesResponse r = server::SharesToProto(f.accounting);
    absl::StatusOr<std::string> text = ctl::sshare::RenderSshare(*options, r, "root");
    bytes = text.ok() ? text->size() : 0;
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_SshareAll1000Users)->Unit(benchmark::kMillisecond);

// sprio -l over 10,000 pending jobs of those users.
void BM_SprioLong10kJobs(benchmark::State& state) {
  Fixture& f = F();
  absl::StatusOr<ctl::sprio::SprioOptions> options = ctl::sprio::ParseSprioArgs({"-l"});
  if (!options.ok()) {
    std::abort();
  }
  size_t bytes = 0;
  for (auto _ : state) {
    canopy::v1::ListPrioritiesResponse r;
    r.set_multifactor(true);
    r.mutable_weights()->set_fairshare(10000);
    r.mutable_weights()->set_age(1000);
    r.mutable_weights()->set_job_size(1000);
    for (const core::Job& j : f.jobs) {
      *r.add_jobs() = server::PriorityToProto(j, f.accounting, kNow);
    }
    bytes = ctl::sprio::RenderSprio(*options, r).out.size();
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_SprioLong10kJobs)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace canopy

BENCHMARK_MAIN();
