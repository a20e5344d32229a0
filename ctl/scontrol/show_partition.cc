// scontrol show partition's record (show_partition.h).
#include "ctl/scontrol/show_partition.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "common/slurm/hostlist.h"
#include "ctl/scontrol/record_text.h"

namespace canopy::ctl::scontrol {
namespace {

struct Totals {
  int64_t cpus = 0;
  int64_t mem_mib = 0;
  int64_t nodes = 0;
  int64_t gpus = 0;
};

// TRESBillingWeights applied to the totals ("CPU=1.0,Mem=0.25G,GRES/gpu=2.0"). A weight of mem
// with a unit suffix counts per that unit; without one, per MB. Unparsable text bills CPUs,
// as having no weights does.
int64_t Billing(const std::string& weights, const Totals& t) {
  if (weights.empty()) {
    return t.cpus;
  }
  double sum = 0;
  for (absl::string_view item : absl::StrSplit(weights, ',', absl::SkipEmpty())) {
    const size_t eq = item.find('=');
    if (eq == absl::string_view::npos) {
      return t.cpus;
    }
    const std::string name = absl::AsciiStrToLower(item.substr(0, eq));
    std::string value(item.substr(eq + 1));
    double per_mib = 1;
    if (!value.empty() && absl::ascii_isalpha(value.back())) {
      const char unit = absl::ascii_toupper(value.back());
      per_mib = unit == 'G' ? 1.0 / 1024 : unit == 'T' ? 1.0 / (1024 * 1024) : 1;
      value.pop_back();
    }
    double w = 0;
    if (!absl::SimpleAtod(value, &w)) {
      return t.cpus;
    }
    if (name == "cpu") {
      sum += w * static_cast<double>(t.cpus);
    } else if (name == "mem") {
      sum += w * static_cast<double>(t.mem_mib) * per_mib;
    } else if (name == "node") {
      sum += w * static_cast<double>(t.nodes);
    } else if (absl::StartsWith(name, "gres/gpu")) {
      sum += w * static_cast<double>(t.gpus);
    }
  }
  return static_cast<int64_t>(sum);
}

}  // namespace

std::string RenderPartition(const canopy::v1::Partition& p,
                            const std::vector<canopy::v1::Node>& nodes,
                            const std::string& cluster_preempt_mode, bool one_liner) {
  const std::string end = one_liner ? " " : "\n   ";
  const std::set<std::string> members(p.nodes().begin(), p.nodes().end());
  Totals t;
  for (const canopy::v1::Node& n : nodes) {
    if (members.count(n.name()) > 0) {
      t.cpus += n.cpus();
      t.mem_mib += n.real_memory_mib();
      t.gpus += n.gpus_configured();
      ++t.nodes;
    }
  }
  const int64_t billing = Billing(p.billing_weights(), t);
  auto limit = [](const google::protobuf::Duration& d) {
    return SlurmClock(absl::Seconds(d.seconds()));
  };

  std::string out = absl::StrCat("PartitionName=", p.name(), end);
  absl::StrAppend(&out, "AllowGroups=ALL AllowAccounts=",
                  p.allow_accounts_size() > 0 ? absl::StrJoin(p.allow_accounts(), ",") : "ALL",
                  " AllowQos=ALL", end);
  absl::StrAppend(&out, "AllocNodes=ALL Default=", p.is_default() ? "YES" : "NO", " QoS=N/A", end);
  absl::StrAppend(&out, "DefaultTime=", p.has_default_time() ? limit(p.default_time()) : "NONE",
                  " DisableRootJobs=NO ExclusiveUser=NO GraceTime=", p.grace_time().seconds(),
                  " Hidden=NO", end);
  absl::StrAppend(&out, "MaxNodes=", p.max_nodes() < 0 ? "UNLIMITED" : absl::StrCat(p.max_nodes()),
                  " MaxTime=", p.has_max_time() ? limit(p.max_time()) : "UNLIMITED",
                  " MinNodes=0 LLN=NO MaxCPUsPerNode=UNLIMITED", end);
  absl::StrAppend(&out, "Nodes=",
                  p.nodes_size() > 0 ? slurm::CompressHostlist(std::vector<std::string>(
                                           p.nodes().begin(), p.nodes().end()))
                                     : "(null)",
                  end);
  absl::StrAppend(&out, "PriorityJobFactor=", p.priority_job_factor(),
                  " PriorityTier=", p.priority_tier(), " RootOnly=NO ReqResv=NO OverSubscribe=NO",
                  end);
  absl::StrAppend(&out, "OverTimeLimit=NONE PreemptMode=",
                  p.preempt_mode().empty() ? cluster_preempt_mode : p.preempt_mode(), end);
  absl::StrAppend(&out, "State=", p.up() ? "UP" : "DOWN", " TotalCPUs=", t.cpus,
                  " TotalNodes=", t.nodes, " SelectTypeParameters=NONE", end);
  absl::StrAppend(&out, "JobDefaults=(null)", end);
  absl::StrAppend(&out, "DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED");
  const std::string tres = TresList({{"cpu", t.cpus, absl::StrCat(t.cpus)},
                                     {"mem", t.mem_mib, SlurmMem(t.mem_mib)},
                                     {"node", t.nodes, absl::StrCat(t.nodes)},
                                     {"billing", billing, absl::StrCat(billing)}});
  // Slurm leaves the TRES line out when the partition has no resources to count.
  if (!tres.empty()) {
    absl::StrAppend(&out, end, "TRES=", tres);
  }
  if (!p.billing_weights().empty()) {
    absl::StrAppend(&out, end, "TRESBillingWeights=", p.billing_weights());
  }
  absl::StrAppend(&out, one_liner ? "\n" : "\n\n");
  return out;
}

}  // namespace canopy::ctl::scontrol
