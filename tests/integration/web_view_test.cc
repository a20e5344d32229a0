// Issue #15: canopyd's live cluster view, opened in headless Chromium (Debian `chromium`) as an
// admin's browser would: the rendered tree puts each leaf's nodes under it, with the states
// sinfo gives and the running gangs squeue lists; the JSON API answers; a screenshot is saved
// (docs/images/web-view.png is one).
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/local_cluster.h"

namespace canopy::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kConfig[] = R"(
cluster_name: itweb
heartbeat_interval: 500ms
web_listen: 127.0.0.1:0
nodes:
  - names: gpu[1-6]
    cpus: 8
    memory_mib: 64000
    gpus: {type: h100, count: 4}
partitions:
  - name: gpu
    nodes: ALL
    default: true
topology_plugin: topology/tree
topology:
  switches:
    - name: leaf1
      nodes: gpu[1-2]
    - name: leaf2
      nodes: gpu[3-4]
    - name: leaf3
      nodes: gpu[5-6]
    - name: spine
      switches: leaf[1-3]
)";

struct RenderedNode {
  std::string state;
  std::set<std::string> jobs;
};

// The nodes the page drew under each switch, from Chromium's serialized DOM: a switch's
// element opens before its nodes, and a leaf holds no other switch.
std::map<std::string, std::map<std::string, RenderedNode>> NodesBySwitch(const std::string& dom) {
  std::map<std::string, std::map<std::string, RenderedNode>> out;
  const std::regex node_re(R"re(data-node="([^"]+)" data-state="([^"]*)" data-jobs="([^"]*)")re");
  std::vector<std::string> parts = absl::StrSplit(dom, "data-switch=\"");
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string name = parts[i].substr(0, parts[i].find('"'));
    for (std::sregex_iterator it(parts[i].begin(), parts[i].end(), node_re), end; it != end; ++it) {
      RenderedNode& node = out[name][(*it)[1]];
      node.state = (*it)[2];
      for (absl::string_view id : absl::StrSplit((*it)[3].str(), ' ', absl::SkipEmpty())) {
        node.jobs.insert(std::string(id));
      }
    }
  }
  return out;
}

class WebViewTest : public ::testing::Test {
 protected:
  WebViewTest() : cluster_(kConfig) {}

  void SetUp() override {
    ASSERT_TRUE(cluster_.StartController().ok()) << cluster_.ControllerLog();
    std::smatch m;
    const std::string log = cluster_.ControllerLog();
    ASSERT_TRUE(
        std::regex_search(log, m, std::regex(R"(cluster view on (http://127\.0\.0\.1:\d+/))")))
        << log;
    url_ = m[1];
    ASSERT_TRUE(cluster_.StartAgent("gpu[1-6]").ok());
    ASSERT_TRUE(WaitUntil(
        [&] {
          return cluster_.FrontEnd("sinfo", {"-h", "-t", "idle", "-o", "%D"}).out == "6\n";
        },
        absl::Seconds(20)))
        << cluster_.AgentLog();
  }

  // Chromium, headless, with a profile of its own in the test's directory; `what` is
  // --dump-dom or --screenshot=PATH. The virtual time budget lets the page fetch and draw.
  CommandResult Chromium(const std::string& what, const std::string& fragment = "") {
    return RunCommand(
        {"/usr/bin/chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--user-data-dir=" + cluster_.dir() + "/chromium", "--window-size=1400,900",
         "--virtual-time-budget=5000", what, url_ + fragment},
        {{"HOME", cluster_.dir()}}, absl::Seconds(90));
  }

  CommandResult Curl(const std::string& path) {
    return RunCommand({"/usr/bin/curl", "-sS", "--max-time", "10", url_ + path}, {});
  }

  LocalCluster cluster_;
  std::string url_;
};

TEST_F(WebViewTest, ThePageShowsTheGangsUnderTheirSwitches) {
  // A 2-node gang of 8 GPUs (one leaf), a 4-node gang (two leaves), a one-GPU job, and one that
  // waits for GPUs no node has left.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"-N2", "--gpus-per-node=4", "-J", "pair"},
        std::vector<std::string>{"-N4", "--gpus-per-node=3", "-J", "quad"},
        std::vector<std::string>{"--gpus=1", "-J", "single"},
        std::vector<std::string>{"-N6", "--gpus-per-node=4", "-J", "waiting"}}) {
    std::vector<std::string> argv = args;
    argv.insert(argv.end(), {"-o", "/dev/null", "--wrap", "sleep 300"});
    const CommandResult r = cluster_.FrontEnd("sbatch", argv);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  std::map<std::string, std::set<std::string>> jobs_on_node;  // from squeue
  ASSERT_TRUE(WaitUntil(
      [&] {
        const std::string out =
            cluster_.FrontEnd("squeue", {"-h", "-t", "running", "-o", "%i %N"}).out;
        return std::count(out.begin(), out.end(), '\n') == 3;
      },
      absl::Seconds(20)))
      << cluster_.FrontEnd("squeue", {"-t", "all", "-o", "%i %j %T %r %N"}).out
      << cluster_.FrontEnd("sacct", {"-X", "-o", "JobID,JobName,State,ExitCode,Reason,NodeList"})
             .out
      << cluster_.ControllerLog() << cluster_.AgentLog();
  for (absl::string_view line :
       absl::StrSplit(cluster_.FrontEnd("squeue", {"-h", "-t", "running", "-o", "%i %N"}).out, '\n',
                      absl::SkipEmpty())) {
    const std::vector<std::string> f = absl::StrSplit(line, ' ');
    const CommandResult hosts = cluster_.FrontEnd("scontrol", {"show", "hostnames", f[1]});
    for (absl::string_view host : absl::StrSplit(hosts.out, '\n', absl::SkipEmpty())) {
      jobs_on_node[std::string(host)].insert(f[0]);
    }
  }
  std::map<std::string, std::string> state_of;  // from sinfo
  for (absl::string_view line : absl::StrSplit(
           cluster_.FrontEnd("sinfo", {"-N", "-h", "-o", "%N %T"}).out, '\n', absl::SkipEmpty())) {
    const std::vector<std::string> f = absl::StrSplit(line, ' ');
    state_of[f[0]] = f[1];
  }

  const CommandResult dom = Chromium("--dump-dom");
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  ASSERT_THAT(dom.out, HasSubstr("data-rendered=")) << "the page never drew:\n" << dom.out;
  const auto drawn = NodesBySwitch(dom.out);
  const std::map<std::string, std::vector<std::string>> leaves = {
      {"leaf1", {"gpu1", "gpu2"}}, {"leaf2", {"gpu3", "gpu4"}}, {"leaf3", {"gpu5", "gpu6"}}};
  for (const auto& [leaf, members] : leaves) {
    ASSERT_TRUE(drawn.contains(leaf)) << "no switch " << leaf << " in:\n" << dom.out;
    std::vector<std::string> names;
    for (const auto& [name, node] : drawn.at(leaf)) {
      names.push_back(name);
      // The page shows the controller's state, which counts GPUs as well as CPUs (a node whose
      // GPUs are all taken is "allocated"; sinfo, like Slurm, says "mixed" while CPUs are free).
      if (state_of[name] == "idle") {
        EXPECT_EQ(node.state, "idle") << name;
      } else {
        EXPECT_THAT(node.state, ::testing::AnyOf("mixed", "allocated")) << name;
        EXPECT_THAT(state_of[name], ::testing::AnyOf("mixed", "allocated")) << name;
      }
      EXPECT_EQ(node.jobs, jobs_on_node[name]) << name << " under " << leaf;
    }
    EXPECT_EQ(names, members) << leaf;
  }
  // The queue: every job with its state, the waiting one with its reason.
  EXPECT_THAT(dom.out, HasSubstr("data-job=\"4\" data-state=\"PENDING\""));
  EXPECT_THAT(dom.out, HasSubstr("data-job=\"2\" data-state=\"RUNNING\""));
  EXPECT_THAT(dom.out, HasSubstr("<td>Resources</td>"));

  // A job's placement explained: a link to #job=N opens the page with it selected.
  const CommandResult gang = Chromium("--dump-dom", "#job=2");
  EXPECT_THAT(gang.out, HasSubstr("Job 2 (quad): why these switches"));
  const CommandResult waiting = Chromium("--dump-dom", "#job=4");
  EXPECT_THAT(waiting.out, HasSubstr("Job 4 (waiting): why still pending"));
  EXPECT_THAT(waiting.out, HasSubstr("Reason: Resources."));

  const std::string shot = std::string(CANOPY_BINARY_DIR) + "/web-view.png";
  std::filesystem::remove(shot);
  const CommandResult png = Chromium("--screenshot=" + shot, "#job=2");
  ASSERT_EQ(png.exit_code, 0) << png.err;
  EXPECT_GT(std::filesystem::file_size(shot), 10'000u) << shot;
}

TEST_F(WebViewTest, TheJsonApiAndItsErrors) {
  const CommandResult topology = Curl("api/v1/topology");
  ASSERT_EQ(topology.exit_code, 0) << topology.err;
  EXPECT_THAT(topology.out, HasSubstr("\"name\":\"spine\""));
  EXPECT_THAT(topology.out, HasSubstr("\"totalGpus\":24"));
  const CommandResult missing =
      RunCommand({"/usr/bin/curl", "-sS", "-w", "%{http_code}", url_ + "api/v1/jobs/99"}, {});
  EXPECT_THAT(missing.out, HasSubstr("Invalid job id specified"));
  EXPECT_THAT(missing.out, ::testing::EndsWith("404"));
  const CommandResult post = RunCommand(
      {"/usr/bin/curl", "-sS", "-X", "POST", "-w", "%{http_code}", url_ + "api/v1/jobs"}, {});
  EXPECT_THAT(post.out, ::testing::EndsWith("405"));
  const CommandResult head =
      RunCommand({"/usr/bin/curl", "-sS", "-I", "--max-time", "10", url_ + "api/v1/ping"}, {});
  EXPECT_THAT(head.out, HasSubstr("Content-Type: application/json"));
  EXPECT_THAT(head.out, ::testing::Not(HasSubstr("clusterName"))) << "HEAD has no body";
  const CommandResult page = Curl("");
  EXPECT_THAT(page.out, HasSubstr("<title>Canopy cluster view</title>"));
}

TEST_F(WebViewTest, AWebViewBeyondLoopbackMustBeAskedFor) {
  cluster_.StopController();
  std::string config = ReadFile(cluster_.config_path());
  config.replace(config.find("127.0.0.1:0"), 11, "0.0.0.0:0");
  std::ofstream(cluster_.config_path()) << config;
  EXPECT_FALSE(cluster_.StartController().ok());
  EXPECT_THAT(cluster_.ControllerLog(),
              HasSubstr("web_listen: 0.0.0.0:0 is reachable from other machines, and the cluster "
                        "view needs no login; set web_allow_remote: true"));
}

}  // namespace
}  // namespace canopy::testing
