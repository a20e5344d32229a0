// canopy-sim: replays a job trace on a cluster through Canopy's scheduler core and prints
// metrics (docs/performance.md, docs/formats/trace.md).
//
//   canopy-sim --config CLUSTER --trace TRACE [--policy canopy|first-fit|slurm-tree|all]
//              [--json] [--no-comm-cost] [--comm-alpha X] [--comm-beta X]
//              [--node-mtbf HOURS] [--repair-hours H] [--seed N] [--queue-depth N]
//              [--plot DIR] [--format auto|canopy|swf|philly] [--time-scale F]
//              [--launch-delay S] [--cleanup-delay S] [--accounts FILE]
//              [--scheduler builtin|backfill] [--until SECONDS] [--progress|--no-progress]
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/config/cluster_config.h"
#include "common/os/release_mutexes.h"
#include "common/slurm/sacctmgr_file.h"
#include "scheduler/core/clock.h"
#include "scheduler/sim/plot.h"
#include "scheduler/sim/sim_progress.h"
#include "scheduler/sim/simulator.h"
#include "scheduler/topology/load_topology.h"

namespace canopy::sim {
namespace {

constexpr char kUsage[] =
    "usage: canopy-sim --config CLUSTER --trace TRACE [--policy NAME|all] [--json]\n"
    "  --config FILE       Canopy YAML or slurm.conf (topology.conf beside it)\n"
    "  --trace FILE        Canopy CSV, SWF (.swf), or the Philly CSV\n"
    "  --format F          auto (default), canopy, swf, philly\n"
    "  --policy NAME       canopy (default), first-fit, slurm-tree, or all (runs the three)\n"
    "  --json              one JSON object (all: keyed by policy) instead of a table\n"
    "  --no-comm-cost      run times do not stretch with placement\n"
    "  --comm-alpha X      stretch per extra leaf switch (default 0.10)\n"
    "  --comm-beta X       stretch per extra switch level (default 0.05)\n"
    "  --node-mtbf HOURS   inject node failures, exponential per node (default off)\n"
    "  --repair-hours H    a failed node's down time (default 4)\n"
    "  --seed N            failure RNG seed (default 1)\n"
    "  --queue-depth N     most placements tried per pass (default 0 = no cap)\n"
    "  --plot DIR          write PNG charts (gnuplot) and their data into DIR\n"
    "  --time-scale F      submit times divided by F (F > 1 = higher offered load; default 1)\n"
    "  --launch-delay S    seconds a simulated agent takes to confirm a launch (default 0)\n"
    "  --cleanup-delay S   seconds a simulated agent takes to clean up after a kill (default 0)\n"
    "  --accounts FILE     associations as sacctmgr dump writes them (replaces the config's)\n"
    "  --scheduler S       builtin or backfill (default: the config's SchedulerType)\n"
    "  --until SECONDS     stop at this simulated time; metrics cover [0, SECONDS]\n"
    "  --progress          show progress on stderr even when it is not a terminal (a line\n"
    "                      every 10 s); on a terminal it is on unless --no-progress\n"
    "  --version           print canopy-sim's version and exit\n";

struct Args {
  std::string config, trace, policy = "canopy", plot, format = "auto", accounts, scheduler;
  bool json = false;
  int progress = -1;  // -1: when stderr is a terminal; 0: never; 1: always
  double time_scale = 1.0;
  SimOptions sim;
};

int Fail(const std::string& msg) {
  std::cerr << "canopy-sim: " << msg << "\n";
  return 2;
}

bool ParseArgs(int argc, char** argv, Args& a, std::string& err) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&](std::string& out) {
      if (i + 1 >= argc) {
        err = absl::StrCat(flag, " needs a value");
        return false;
      }
      out = argv[++i];
      return true;
    };
    std::string v;
    double d = 0;
    if (flag == "--progress" || flag == "--no-progress") {
      a.progress = flag == "--progress" ? 1 : 0;
      continue;
    }
    if (flag == "--config") {
      if (!value(a.config)) return false;
    } else if (flag == "--trace") {
      if (!value(a.trace)) return false;
    } else if (flag == "--policy") {
      if (!value(a.policy)) return false;
    } else if (flag == "--format") {
      if (!value(a.format)) return false;
    } else if (flag == "--plot") {
      if (!value(a.plot)) return false;
    } else if (flag == "--accounts") {
      if (!value(a.accounts)) return false;
    } else if (flag == "--scheduler") {
      if (!value(a.scheduler)) return false;
      if (a.scheduler != "builtin" && a.scheduler != "backfill") {
        err = absl::StrCat("--scheduler: expected builtin or backfill, got '", a.scheduler, "'");
        return false;
      }
    } else if (flag == "--until") {
      if (!value(v)) return false;
      if (!absl::SimpleAtod(v, &d) || !(d > 0) || d > 1e10) {
        err = absl::StrCat("--until: expected seconds > 0, got '", v, "'");
        return false;
      }
      a.sim.until = absl::Seconds(d);
    } else if (flag == "--json") {
      a.json = true;
    } else if (flag == "--no-comm-cost") {
      a.sim.comm.enabled = false;
    } else if (flag == "--comm-alpha" || flag == "--comm-beta" || flag == "--node-mtbf" ||
               flag == "--repair-hours") {
      if (!value(v)) return false;
      if (!absl::SimpleAtod(v, &d) || d < 0) {
        err = absl::StrCat(flag, ": expected a number >= 0, got '", v, "'");
        return false;
      }
      if (flag == "--comm-alpha") a.sim.comm.alpha = d;
      if (flag == "--comm-beta") a.sim.comm.beta = d;
      if (flag == "--node-mtbf") a.sim.failures.mtbf = absl::Seconds(d * 3600);
      if (flag == "--repair-hours") a.sim.failures.repair_time = absl::Seconds(d * 3600);
    } else if (flag == "--launch-delay" || flag == "--cleanup-delay") {
      if (!value(v)) return false;
      if (!absl::SimpleAtod(v, &d) || !(d >= 0) || d > 86400) {
        err = absl::StrCat(flag, ": expected seconds between 0 and 86400, got '", v, "'");
        return false;
      }
      (flag == "--launch-delay" ? a.sim.agents.launch : a.sim.agents.cleanup) = absl::Seconds(d);
    } else if (flag == "--time-scale") {
      if (!value(v)) return false;
      if (!absl::SimpleAtod(v, &a.time_scale) || !(a.time_scale > 0)) {
        err = absl::StrCat("--time-scale: expected a number > 0, got '", v, "'");
        return false;
      }
    } else if (flag == "--seed") {
      if (!value(v)) return false;
      if (!absl::SimpleAtoi(v, &a.sim.failures.seed)) {
        err = absl::StrCat("--seed: expected an integer, got '", v, "'");
        return false;
      }
    } else if (flag == "--queue-depth") {
      if (!value(v)) return false;
      if (!absl::SimpleAtoi(v, &a.sim.pass.max_policy_calls) || a.sim.pass.max_policy_calls < 0) {
        err = absl::StrCat("--queue-depth: expected an integer >= 0, got '", v, "'");
        return false;
      }
    } else if (flag == "-h" || flag == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (flag == "-V" || flag == "--version") {
      std::cout << "canopy-sim " << CANOPY_VERSION << "\n";
      std::exit(0);
    } else {
      err = absl::StrCat("unknown flag '", flag, "'");
      return false;
    }
  }
  if (a.config.empty() || a.trace.empty()) {
    err = "--config and --trace are required";
    return false;
  }
  return true;
}

int Main(int argc, char** argv) {
  Args args;
  std::string err;
  if (!ParseArgs(argc, argv, args, err)) {
    std::cerr << "canopy-sim: " << err << "\n" << kUsage;
    return 2;
  }
  absl::StatusOr<config::ClusterConfig> config = config::LoadClusterConfig(args.config);
  if (!config.ok()) {
    return Fail(config.status().ToString());
  }
  if (!args.accounts.empty()) {
    std::ifstream in(args.accounts);
    if (!in) {
      return Fail(absl::StrCat("--accounts ", args.accounts, ": cannot read the file"));
    }
    std::stringstream text;
    text << in.rdbuf();
    absl::StatusOr<std::vector<slurm::FlatFileRecord>> records =
        slurm::ParseFlatFile(text.str(), args.accounts);
    if (!records.ok()) {
      return Fail(records.status().ToString());
    }
    config->scheduling.accounting.accounts = *std::move(records);
    config->scheduling.accounting.accounts_origin = args.accounts;
  }
  if (!args.scheduler.empty()) {
    config->scheduling.scheduler.backfill = args.scheduler == "backfill";
  }
  absl::StatusOr<topology::Topology> topo = topology::LoadTopology(*config);
  if (!topo.ok()) {
    return Fail(topo.status().ToString());
  }
  int32_t gpus_per_node = 0;
  for (const config::NodeConfig& n : config->nodes) {
    int32_t g = 0;
    for (const config::GpuConfig& c : n.gpus) {
      g += c.count;
    }
    gpus_per_node = std::max(gpus_per_node, g);
  }
  TraceFormat format = TraceFormat::kAuto;
  if (args.format == "canopy")
    format = TraceFormat::kCanopyCsv;
  else if (args.format == "swf")
    format = TraceFormat::kSwf;
  else if (args.format == "philly")
    format = TraceFormat::kPhilly;
  else if (args.format != "auto")
    return Fail(absl::StrCat("unknown --format '", args.format, "'"));
  absl::StatusOr<std::vector<TraceJob>> trace =
      ReadTraceFile(args.trace, format, std::max(1, gpus_per_node));
  if (!trace.ok()) {
    return Fail(trace.status().ToString());
  }
  for (TraceJob& j : *trace) {
    // Compressing inter-arrival times raises the offered load without changing any job.
    j.submit = j.submit / args.time_scale;
  }
  std::vector<std::string> policies;
  if (args.policy == "all") {
    policies = {"canopy", "first-fit", "slurm-tree"};
  } else {
    policies = {args.policy};
  }
  int64_t total_gpus = 0;
  for (const config::NodeConfig& n : config->nodes) {
    for (const config::GpuConfig& c : n.gpus) {
      total_gpus += c.count;
    }
  }
  core::SystemClock wall;  // only to report how fast the simulator itself ran
  std::vector<PlotRun> runs;
  for (const std::string& p : policies) {
    SimOptions opts = args.sim;
    opts.policy = p;
    const bool terminal = isatty(STDERR_FILENO) != 0;
    std::optional<ProgressDisplay> progress;
    if (args.progress == 1 || (args.progress == -1 && terminal)) {
      progress.emplace(std::cerr, p, terminal);
      opts.progress = [&progress](const SimProgress& at) { progress->Update(at); };
    }
    const absl::Time t0 = wall.Now();
    absl::StatusOr<SimResult> r = RunSimulation(*config, *topo, *trace, opts);
    if (progress.has_value()) {
      progress->Finish();
    }
    if (!r.ok()) {
      return Fail(r.status().ToString());
    }
    const double secs = absl::ToDoubleSeconds(wall.Now() - t0);
    r->metrics.sim_wall_s = secs;
    r->metrics.events_per_s = secs > 0 ? static_cast<double>(r->metrics.events) / secs : 0;
    r->metrics.policy = p;
    runs.push_back({p, std::move(r->metrics), std::move(r->series), total_gpus});
  }
  if (args.json) {
    if (runs.size() == 1) {
      std::cout << MetricsToJson(runs[0].metrics) << "\n";
    } else {
      std::string out = "{";
      for (size_t i = 0; i < runs.size(); ++i) {
        absl::StrAppend(&out, i ? "," : "", "\"", runs[i].label,
                        "\":", MetricsToJson(runs[i].metrics));
      }
      std::cout << out << "}\n";
    }
  } else {
    std::vector<SimMetrics> ms;
    for (const PlotRun& r : runs) {
      ms.push_back(r.metrics);
    }
    std::cout << MetricsTable(ms);
  }
  if (!args.plot.empty()) {
    if (absl::Status s = WritePlots(args.plot, runs); !s.ok()) {
      return Fail(s.ToString());
    }
    std::cerr << "canopy-sim: charts written to " << args.plot << "\n";
  }
  return 0;
}

}  // namespace
}  // namespace canopy::sim

int main(int argc, char** argv) {
  canopy::os::SwitchOffMutexDeadlockDetection();
  return canopy::sim::Main(argc, argv);
}
