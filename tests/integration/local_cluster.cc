#include "tests/integration/local_cluster.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace canopy::testing {

LocalCluster::LocalCluster(const std::string& config_yaml) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "canopy-it-XXXXXX").string();
  dir_ = mkdtemp(tmpl.data());
  std::ofstream(config_path()) << config_yaml;
}

LocalCluster::~LocalCluster() {
  // SIGTERM first: the agent kills its jobs' process groups on the way out (a SIGKILLed agent
  // cannot, and jobs run in their own sessions).
  StopAgent();
  controller_.reset();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

absl::Status LocalCluster::StartController(const std::vector<std::string>& extra_flags) {
  const std::string port_file = dir_ + "/port";
  std::filesystem::remove(port_file);
  // Reuse the port across restarts so agents find the controller again.
  const std::string listen = address_.empty() ? std::string("127.0.0.1:0") : address_;
  std::vector<std::string> argv = {CANOPYD_PATH, "--config",    config_path(),   "--listen",
                                   listen,       "--state_dir", dir_ + "/state", "--port_file",
                                   port_file,    "--log_level", "debug"};
  argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
  absl::StatusOr<Subprocess> p = Subprocess::Start(argv, {}, dir_ + "/canopyd.log");
  if (!p.ok()) {
    return p.status();
  }
  controller_.emplace(*std::move(p));
  // A canopyd that refuses its configuration exits at once: no need to wait the whole 20 s.
  bool exited = false;
  const bool up = WaitUntil(
      [&] {
        exited = controller_->Wait(absl::ZeroDuration()).ok();
        return exited || std::filesystem::exists(port_file);
      },
      absl::Seconds(20));
  if (exited) {
    controller_.reset();
    return absl::FailedPreconditionError(
        absl::StrCat("canopyd exited at start; its log:\n", ControllerLog()));
  }
  if (!up) {
    return absl::DeadlineExceededError(
        absl::StrCat("canopyd did not start; its log:\n", ControllerLog()));
  }
  address_ = absl::StrCat("127.0.0.1:", absl::StripAsciiWhitespace(ReadFile(port_file)));
  return absl::OkStatus();
}

void LocalCluster::CrashController() {
  if (controller_.has_value()) {
    controller_->Kill();
    controller_.reset();
  }
}

void LocalCluster::StopController() {
  if (controller_.has_value()) {
    controller_->Signal(SIGTERM);
    (void)controller_->Wait(absl::Seconds(10));
    controller_.reset();
  }
}

absl::Status LocalCluster::StartAgent(const std::string& virtual_nodes,
                                      const std::vector<std::string>& extra_flags) {
  // The tests submit as themselves, root in CI: the agent must run root's jobs.
  std::vector<std::string> argv = {CANOPY_AGENT_PATH, "--controller",     address_,
                                   "--virtual_nodes", virtual_nodes,      "--log_level",
                                   "debug",           "--allow_root_jobs"};
  argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
  absl::StatusOr<Subprocess> p =
      Subprocess::Start(argv, {{"CANOPY_CONFIG", config_path()}}, dir_ + "/agent.log");
  if (!p.ok()) {
    return p.status();
  }
  agent_.emplace(*std::move(p));
  return absl::OkStatus();
}

void LocalCluster::StopAgent() {
  if (agent_.has_value()) {
    agent_->Signal(SIGTERM);
    (void)agent_->Wait(absl::Seconds(10));
    agent_.reset();
  }
}

void LocalCluster::KillAgent() {
  if (agent_.has_value()) {
    agent_->Kill();
    agent_.reset();
  }
}

std::string LocalCluster::socket_target() const {
  return absl::StrCat("unix:", dir_, "/state/canopyd.sock");
}

CommandResult LocalCluster::Canopyctl(const std::vector<std::string>& args) const {
  // Over the unix socket, so the controller knows who is asking (tests run as an operator: the
  // same user as canopyd).
  std::vector<std::string> argv = {CANOPYCTL_PATH, "--controller", socket_target()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv);
}

CommandResult LocalCluster::FrontEnd(const std::string& name,
                                     const std::vector<std::string>& args) const {
  std::vector<std::string> argv = {absl::StrCat(CANOPYCTL_DIR, "/", name)};
  argv.insert(argv.end(), args.begin(), args.end());
  std::map<std::string, std::string> env = front_end_env_;
  env["CANOPY_CONTROLLER"] = socket_target();
  return RunCommand(argv, env);
}

int LocalCluster::IdleNodes() const {
  std::set<std::string> idle;
  for (absl::string_view line : absl::StrSplit(FrontEnd("sinfo", {"-h", "-N", "-o", "%N %t"}).out,
                                               '\n', absl::SkipEmpty())) {
    std::pair<std::string, std::string> node = absl::StrSplit(line, ' ');
    if (node.second == "idle") {
      idle.insert(node.first);  // once, whatever number of partitions it is in
    }
  }
  return static_cast<int>(idle.size());
}

CommandResult LocalCluster::FrontEndIn(const std::string& name,
                                       const std::vector<std::string>& args, const std::string& cwd,
                                       absl::Duration timeout) const {
  // sh -c 'cd DIR && exec "$0" "$@"': the front ends take the working directory as the submit dir.
  std::vector<std::string> argv = {"/bin/sh", "-c", "cd \"$CANOPY_TEST_CWD\" && exec \"$0\" \"$@\"",
                                   absl::StrCat(CANOPYCTL_DIR, "/", name)};
  argv.insert(argv.end(), args.begin(), args.end());
  // The front ends first on PATH, so a job script's `srun` is ours.
  const char* path = getenv("PATH");
  std::map<std::string, std::string> env = front_end_env_;
  env["CANOPY_CONTROLLER"] = socket_target();
  env["CANOPY_TEST_CWD"] = cwd;
  env["PATH"] = absl::StrCat(CANOPYCTL_DIR, ":", path == nullptr ? "/usr/bin:/bin" : path);
  return RunCommand(argv, env, timeout);
}

absl::StatusOr<Subprocess> LocalCluster::StartFrontEnd(const std::string& name,
                                                       const std::vector<std::string>& args,
                                                       const std::string& cwd,
                                                       const std::string& log_path) const {
  std::vector<std::string> argv = {"/bin/sh", "-c", "cd \"$CANOPY_TEST_CWD\" && exec \"$0\" \"$@\"",
                                   absl::StrCat(CANOPYCTL_DIR, "/", name)};
  argv.insert(argv.end(), args.begin(), args.end());
  const char* path = getenv("PATH");
  std::map<std::string, std::string> env = front_end_env_;
  env["CANOPY_CONTROLLER"] = socket_target();
  env["CANOPY_TEST_CWD"] = cwd;
  env["PATH"] = absl::StrCat(CANOPYCTL_DIR, ":", path == nullptr ? "/usr/bin:/bin" : path);
  return Subprocess::Start(argv, env, log_path);
}

}  // namespace canopy::testing
