// Issue #14: the site's SPANK plugins on a real canopyd and canopy-agent, driven by the real
// sbatch and srun. The plugins are the C test plugins of plugins/spank/test_plugins, built
// against the system's <slurm/spank.h> as a site's are, named by a plugstack.conf beside the
// cluster config (one by a path relative to PluginDir):
//   callback_order  logs every callback with its context and ids (compared with Slurm's order)
//   greeting        --canopy-greeting=NAME / --canopy-shout set CANOPY_GREETING in the task
//   prepend_argv    runs every task as "/usr/bin/env CANOPY_PREPENDED=yes COMMAND..."
//   fail_task_init  fails slurm_spank_task_init (or user_init) where the environment asks
//   renice          sets each task's nice value (prio=7) in task_init_privileged
//   private_tmp     (as root only: it needs a mount namespace) a private directory per job,
//                   made in job_prolog and bind-mounted in the task's namespace
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/local_cluster.h"

namespace canopy::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kConfig[] = R"(
cluster_name: itspank
node_timeout: 5s
heartbeat_interval: 500ms
kill_wait: 2s
nodes:
  - names: gpu[1-2]
    cpus: 4
    memory_mib: 8000
partitions:
  - name: gpu
    nodes: ALL
    default: true
)";

// One line of callback_order's log.
struct Call {
  std::string hook;
  std::string context;
  int uid = -1;
  int euid = -1;
  std::string task;
  int pid = 0;
  int ppid = 0;
};

std::vector<Call> ReadCalls(const std::string& path) {
  std::vector<Call> calls;
  for (absl::string_view line : absl::StrSplit(ReadFile(path), '\n', absl::SkipEmpty())) {
    std::vector<std::string> words = absl::StrSplit(line, ' ');
    Call call;
    call.hook = words[0];
    call.context = words[1];
    for (const std::string& word : words) {
      const size_t eq = word.find('=');
      if (eq == std::string::npos) {
        continue;
      }
      const std::string key = word.substr(0, eq);
      const std::string value = word.substr(eq + 1);
      if (key == "uid") {
        (void)absl::SimpleAtoi(value, &call.uid);
      } else if (key == "euid") {
        (void)absl::SimpleAtoi(value, &call.euid);
      } else if (key == "task") {
        call.task = value;
      } else if (key == "pid") {
        (void)absl::SimpleAtoi(value, &call.pid);
      } else if (key == "ppid") {
        (void)absl::SimpleAtoi(value, &call.ppid);
      }
    }
    calls.push_back(call);
  }
  return calls;
}

// The hooks of one process (and of the tasks it forked), in the order they ran.
std::vector<std::string> HooksOf(const std::vector<Call>& calls, int pid) {
  std::vector<std::string> hooks;
  for (const Call& c : calls) {
    if (c.pid == pid || c.ppid == pid) {
      hooks.push_back(c.hook);
    }
  }
  return hooks;
}

const Call* Find(const std::vector<Call>& calls, int pid, const std::string& hook) {
  for (const Call& c : calls) {
    if ((c.pid == pid || c.ppid == pid) && c.hook == hook) {
      return &c;
    }
  }
  return nullptr;
}

class SpankTest : public ::testing::Test {
 protected:
  SpankTest()
      : cluster_(absl::StrCat(kConfig, "plugin_dir: ", SPANK_TEST_PLUGIN_DIR, "\n",
                              "prolog: ", std::filesystem::temp_directory_path().string(),
                              "/canopy-spank-prolog-", getpid(), ".sh\n")) {}

  void SetUp() override {
    // Reachable by the job's user (nobody when the test runs as root), as on a real node.
    chmod(cluster_.dir().c_str(), 0755);
    work_ = cluster_.dir() + "/work";
    std::filesystem::create_directories(work_);
    chmod(work_.c_str(), 0777);
    log_ = work_ + "/order.log";
    std::ofstream(log_).close();
    chmod(log_.c_str(), 0666);
    std::ofstream(cluster_.dir() + "/plugstack.conf")
        << "# the site's plugins\n"
        << "required " << SPANK_TEST_PLUGIN_DIR << "/callback_order.so log=" << log_ << "\n"
        << "optional " << SPANK_TEST_PLUGIN_DIR << "/greeting.so\n"
        << "required " << SPANK_TEST_PLUGIN_DIR << "/prepend_argv.so\n"
        << "required " << SPANK_TEST_PLUGIN_DIR << "/fail_task_init.so\n"
        << "required renice.so prio=7\n";
    if (geteuid() == 0) {
      std::filesystem::create_directories(work_ + "/private");
      std::filesystem::create_directories(work_ + "/scratch");
      std::ofstream(cluster_.dir() + "/plugstack.conf", std::ios::app)
          << "required private_tmp.so base=" << work_ << "/private mount=" << work_ << "/scratch\n";
    }
    // The Prolog records what slurmd-side scripts see (SPANK_* from the plugins' job control
    // environment); it lives outside the cluster's directory, whose path is not known above.
    prolog_ = std::filesystem::temp_directory_path().string() + "/canopy-spank-prolog-" +
              std::to_string(getpid()) + ".sh";
    std::ofstream(prolog_) << "#!/bin/sh\nenv > " << work_ << "/prolog.$SLURM_JOB_ID\n";
    chmod(prolog_.c_str(), 0755);
    cluster_.SetFrontEndVariable("CANOPY_CONFIG", cluster_.config_path());
    ASSERT_TRUE(cluster_.StartController().ok()) << cluster_.ControllerLog();
    // A spool of its own: /var/spool/canopy is shared by every test running as root.
    ASSERT_TRUE(cluster_.StartAgent("gpu[1-2]", {"--spool_dir", cluster_.dir() + "/spool"}).ok());
    ASSERT_TRUE(WaitUntil(
        [&] {
          return cluster_.FrontEnd("sinfo", {"-h", "-t", "idle", "-o", "%D"}).out == "2\n";
        },
        absl::Seconds(20)))
        << cluster_.AgentLog();
  }

  // A front end in the work directory: as `nobody` when the test runs as root (so the plugins'
  // privilege changes show), else as ourselves.
  CommandResult Run(const std::string& command, const std::vector<std::string>& extra_env = {}) {
    std::vector<std::string> argv;
    if (geteuid() == 0) {
      argv = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
    }
    argv.insert(argv.end(), {"/usr/bin/env", absl::StrCat("CANOPY_CONFIG=", cluster_.config_path()),
                             absl::StrCat("CANOPY_CONTROLLER=", cluster_.socket_target()),
                             absl::StrCat("PATH=", CANOPYCTL_DIR, ":/usr/bin:/bin")});
    argv.insert(argv.end(), extra_env.begin(), extra_env.end());
    argv.insert(argv.end(), {"/bin/sh", "-c", absl::StrCat("cd ", work_, " && ", command)});
    return RunCommand(argv, {}, absl::Seconds(60));
  }

  void TearDown() override { std::filesystem::remove(prolog_); }

  int JobUid() const { return geteuid() == 0 ? 65534 : static_cast<int>(geteuid()); }

  // The job went back to the queue held, as after a failure of the node's (waits for it).
  bool RequeuedHeld(const std::string& job) {
    return WaitUntil(
        [&] {
          return cluster_.FrontEnd("squeue", {"-h", "-j", job, "-o", "%T %r"}).out ==
                 "PENDING JobHeldUser\n";
        },
        absl::Seconds(30));
  }

  LocalCluster cluster_;
  std::string work_;
  std::string log_;
  std::string prolog_;
};

// Every context's callbacks in Slurm's order, each with the identity Slurm gives it: sbatch
// (allocator), the agent (slurmd), the batch script's and a step's task supervisor (remote:
// root, the user for user_init, each task root for task_init_privileged and the user from
// then on), srun inside the job (local).
TEST_F(SpankTest, CallbackOrderAndContextsAreSlurms) {
  const CommandResult sbatch = Run("sbatch -W -o batch.out --wrap 'srun -n1 true; echo done'");
  ASSERT_EQ(sbatch.exit_code, 0) << sbatch.out << sbatch.err << cluster_.AgentLog();
  EXPECT_EQ(ReadFile(work_ + "/batch.out"), "done\n");
  cluster_.StopAgent();
  const std::vector<Call> calls = ReadCalls(log_);
  ASSERT_FALSE(calls.empty());

  // slurmd: the agent loads the stack at start and says goodbye when it stops.
  std::vector<std::string> slurmd;
  std::vector<std::string> allocator;
  std::vector<std::string> local;
  std::vector<std::string> job_script;
  std::vector<int> remote_supervisors;
  for (const Call& c : calls) {
    if (c.context == "slurmd") {
      slurmd.push_back(c.hook);
      EXPECT_EQ(c.euid, static_cast<int>(geteuid()));
    } else if (c.context == "allocator") {
      allocator.push_back(c.hook);
      EXPECT_EQ(c.uid, JobUid());
    } else if (c.context == "local") {
      local.push_back(c.hook);
      EXPECT_EQ(c.uid, JobUid());
    } else if (c.context == "job_script") {
      job_script.push_back(c.hook);
      EXPECT_EQ(c.euid, static_cast<int>(geteuid()));  // as slurmd's user
    } else if (c.context == "remote" && c.hook == "init") {
      remote_supervisors.push_back(c.pid);
    }
  }
  EXPECT_THAT(slurmd, ElementsAre("init", "slurmd_exit"));
  EXPECT_THAT(allocator, ElementsAre("init", "init_post_opt", "exit"));
  EXPECT_THAT(local, ElementsAre("init", "init_post_opt", "local_user_init", "exit"));
  // The plugins' job_prolog before anything of the job, job_epilog once it is gone.
  EXPECT_THAT(job_script, ElementsAre("job_prolog", "job_epilog"));
  // The batch script, then the srun step's one task.
  ASSERT_EQ(remote_supervisors.size(), 2u);
  for (int pid : remote_supervisors) {
    SCOPED_TRACE(absl::StrCat("supervisor ", pid));
    EXPECT_THAT(HooksOf(calls, pid),
                ElementsAre("init", "init_post_opt", "user_init", "task_init_privileged",
                            "task_post_fork", "task_init", "task_exit", "exit"));
    const Call* init = Find(calls, pid, "init");
    const Call* user_init = Find(calls, pid, "user_init");
    const Call* privileged = Find(calls, pid, "task_init_privileged");
    const Call* post_fork = Find(calls, pid, "task_post_fork");
    const Call* task_init = Find(calls, pid, "task_init");
    ASSERT_TRUE(init && user_init && privileged && post_fork && task_init);
    const int root = static_cast<int>(geteuid());
    EXPECT_EQ(init->euid, root);
    EXPECT_EQ(user_init->euid, JobUid());  // privileges dropped for a while
    EXPECT_EQ(user_init->uid, root);
    EXPECT_EQ(privileged->euid, root);
    EXPECT_EQ(privileged->task, "0");
    EXPECT_EQ(privileged->ppid, pid);  // in the forked task
    EXPECT_EQ(post_fork->pid, pid);    // in the parent
    EXPECT_EQ(task_init->uid, JobUid());
    EXPECT_EQ(task_init->euid, JobUid());
  }
}

// An option a plugin registers works on sbatch's and srun's command lines, in #SBATCH lines
// and in --help; the plugins change the task's environment, command line and nice value; the
// option carriers do not reach the task.
TEST_F(SpankTest, PluginsOptionsEnvironmentArgvAndPriority) {
  // Where Slurm 22.05 prints them (recorded from the real commands with the same plugins:
  // tests/data/slurm-reference/spank-22.05.txt): just before the GPU section.
  const CommandResult help = Run("sbatch --help");
  EXPECT_THAT(help.out, HasSubstr("\n\nOptions provided by plugins:\n"
                                  "      --canopy-greeting=NAME  Greet NAME in the task's "
                                  "environment (test plugin)\n\nGPU scheduling options:\n"));
  EXPECT_THAT(Run("srun --help").out,
              HasSubstr("Options provided by plugins:\n"
                        "      --canopy-shout          Greet in capitals (test plugin)\n"
                        "      --canopy-greeting=NAME  Greet NAME in the task's environment "
                        "(test plugin)\n\nGPU scheduling options:\n"));

  std::ofstream(work_ + "/job.sh") << "#!/bin/sh\n"
                                   << "#SBATCH --canopy-greeting=bob\n"
                                   << "#SBATCH -o job.out\n"
                                   << "printenv CANOPY_GREETING CANOPY_PREPENDED\n"
                                   << "nice\n"
                                   << "env | grep -c _SLURM_SPANK_OPTION_ || true\n"
                                   << "srun -N2 -n2 --canopy-shout --canopy-greeting=ada "
                                      "printenv CANOPY_GREETING | sort\n";
  const CommandResult sbatch = Run("sbatch -W -N2 --parsable job.sh");
  ASSERT_EQ(sbatch.exit_code, 0) << sbatch.out << sbatch.err << cluster_.AgentLog();
  EXPECT_EQ(ReadFile(work_ + "/job.out"), "hello bob\nyes\n7\n0\nHELLO ADA\nHELLO ADA\n");
  // The plugin's spank_job_control_setenv in sbatch reached the Prolog as SPANK_GREETING.
  const std::string prolog_env =
      ReadFile(absl::StrCat(work_, "/prolog.", absl::StripAsciiWhitespace(sbatch.out)));
  EXPECT_THAT(prolog_env, HasSubstr("SPANK_GREETING=bob\n"));
  EXPECT_THAT(prolog_env, HasSubstr("SLURM_SCRIPT_CONTEXT=prolog_slurmd\n"));

  // The command line wins over the directive.
  ASSERT_EQ(Run("sbatch -W -o cli.out --canopy-greeting=cy job.sh").exit_code, 0);
  EXPECT_THAT(ReadFile(work_ + "/cli.out"), ::testing::StartsWith("hello cy\n"));

  // The plugin's callback refuses a value: Slurm's message and exit code, no job.
  const CommandResult bad = Run("sbatch --canopy-greeting=nobody --wrap true");
  EXPECT_EQ(bad.exit_code, 255);
  EXPECT_EQ(bad.err, "sbatch: error: Invalid --canopy-greeting argument: nobody\n");
  const CommandResult bad_srun = Run("srun --canopy-greeting=nobody true");
  EXPECT_EQ(bad_srun.exit_code, 255);
  EXPECT_EQ(bad_srun.err, "srun: error: Invalid --canopy-greeting argument: nobody\n");
}

// A required plugin failing slurm_spank_task_init fails the task with exit code 1 and Slurm's
// message on its stderr (and in the agent's log); the command never runs.
TEST_F(SpankTest, AFailingRequiredPluginFailsTheTaskWithSlurmsMessage) {
  const CommandResult batch =
      Run("sbatch -W -o fail.out --wrap 'echo ran'", {"CANOPY_FAIL_TASK_INIT=1"});
  EXPECT_EQ(batch.exit_code, 1) << batch.out << batch.err;
  const std::string out = ReadFile(work_ + "/fail.out");
  EXPECT_THAT(out, HasSubstr("spank: required plugin fail_task_init: slurm_spank_task_init() "
                             "failed with rc=-7"));
  EXPECT_THAT(out, Not(HasSubstr("ran")));
  EXPECT_THAT(cluster_.AgentLog(),
              HasSubstr("error: spank: required plugin fail_task_init: slurm_spank_task_init() "
                        "failed with rc=-7"));

  // A step: srun reports the task's failure; the other steps of the job are not affected.
  const CommandResult step =
      Run("sbatch -W -o step.out --wrap 'CANOPY_FAIL_TASK_INIT=1 srun -n1 echo ran; echo rc=$?; "
          "srun -n1 echo fine'");
  EXPECT_EQ(step.exit_code, 0) << step.out << step.err;
  const std::string step_out = ReadFile(work_ + "/step.out");
  EXPECT_THAT(step_out, HasSubstr("slurm_spank_task_init() failed with rc=-7"));
  EXPECT_THAT(step_out, HasSubstr("rc=1\n"));
  EXPECT_THAT(step_out, HasSubstr("fine\n"));
  EXPECT_THAT(step_out, Not(HasSubstr("ran\n")));
}

// A required plugin failing slurmstepd's own part of a batch script's set-up (user_init) is
// the node's fault, as in Slurm: the node is drained ("batch job complete failure") and the job
// goes back to the queue held; the script never runs. (A step's failure fails the step only.)
TEST_F(SpankTest, APluginFailingABatchScriptsSetUpDrainsTheNodeAndRequeuesTheJobHeld) {
  const CommandResult sbatch =
      Run("sbatch -w gpu1 --parsable -o never.out --wrap 'echo ran'", {"CANOPY_FAIL_USER_INIT=1"});
  ASSERT_EQ(sbatch.exit_code, 0) << sbatch.out << sbatch.err;
  const std::string job(absl::StripAsciiWhitespace(sbatch.out));
  ASSERT_TRUE(RequeuedHeld(job)) << cluster_.ControllerLog() << cluster_.AgentLog();
  EXPECT_THAT(cluster_.FrontEnd("scontrol", {"show", "node", "gpu1"}).out,
              HasSubstr("Reason=batch job complete failure"));
  const std::string out = ReadFile(work_ + "/never.out");
  EXPECT_THAT(out, HasSubstr("slurm_spank_user_init() failed with rc=-8"));
  EXPECT_THAT(out, Not(HasSubstr("ran")));
  EXPECT_THAT(cluster_.AgentLog(), HasSubstr("the node's SPANK plugins failed its set-up"));
  EXPECT_THAT(cluster_.ControllerLog(), HasSubstr("batch job set-up failed on gpu1"));
}

// plugstack.conf is read again at every launch: a plugin that cannot be loaded any more on the
// node (named after the agent started) fails the node's part of the job before anything of the
// job runs there: here the plugins' job_prolog, so the node is drained "Prolog error" and the
// job requeued held, as slurmd does when its prolog's plugin stack fails.
TEST_F(SpankTest, APluginThatCannotBeLoadedAnyMoreDrainsTheNode) {
  // Submitted held while sbatch can still load the stack; the node then loses a plugin.
  const CommandResult sbatch =
      Run("sbatch -H -w gpu2 --parsable -o unloaded.out --wrap 'echo ran'");
  ASSERT_EQ(sbatch.exit_code, 0) << sbatch.out << sbatch.err;
  const std::string job(absl::StripAsciiWhitespace(sbatch.out));
  std::ofstream(cluster_.dir() + "/plugstack.conf", std::ios::app)
      << "required " << work_ << "/missing.so\n";
  ASSERT_EQ(cluster_.FrontEnd("scontrol", {"release", job}).exit_code, 0);
  ASSERT_TRUE(RequeuedHeld(job)) << cluster_.ControllerLog() << cluster_.AgentLog();
  EXPECT_THAT(cluster_.FrontEnd("scontrol", {"show", "node", "gpu2"}).out,
              HasSubstr("Reason=Prolog error"));
  EXPECT_THAT(cluster_.AgentLog(), HasSubstr("missing.so"));
  EXPECT_FALSE(std::filesystem::exists(work_ + "/unloaded.out"));
}

// Several tasks of one step on a node share one supervisor, as they share one slurmstepd: the
// per-step hooks run once, the per-task hooks once per task, every task_post_fork before any
// task_init; each rank keeps its own output and exit code, and its own pid in SLURM_TASK_PID
// (the batch script too).
TEST_F(SpankTest, AStepsTasksOnANodeShareOneSupervisor) {
  const CommandResult sbatch =
      Run("sbatch -W -N1 -o multi.out --wrap 'srun -n3 -l sh -c \"[ \\$SLURM_TASK_PID = \\$\\$ ] "
          "&& echo rank-\\$SLURM_PROCID; exit \\$SLURM_PROCID\"; echo rc=$?; "
          "[ $SLURM_TASK_PID = $$ ] && echo batch-pid'");
  ASSERT_EQ(sbatch.exit_code, 0) << sbatch.out << sbatch.err << cluster_.AgentLog();
  const std::string out = ReadFile(work_ + "/multi.out");
  EXPECT_THAT(out, HasSubstr("0: rank-0\n"));
  EXPECT_THAT(out, HasSubstr("1: rank-1\n"));
  EXPECT_THAT(out, HasSubstr("2: rank-2\n"));
  EXPECT_THAT(out, HasSubstr("rc=2\n"));
  EXPECT_THAT(out, HasSubstr("batch-pid\n"));
  const std::vector<Call> calls = ReadCalls(log_);
  int step_supervisor = 0;
  for (const Call& c : calls) {
    if (c.context == "remote" && c.hook == "task_post_fork" && c.task == "2") {
      step_supervisor = c.pid;
    }
  }
  ASSERT_NE(step_supervisor, 0);
  const std::vector<std::string> hooks = HooksOf(calls, step_supervisor);
  auto count = [&](const std::string& hook) {
    return std::count(hooks.begin(), hooks.end(), hook);
  };
  EXPECT_EQ(count("init"), 1);
  EXPECT_EQ(count("init_post_opt"), 1);
  EXPECT_EQ(count("user_init"), 1);
  EXPECT_EQ(count("task_init_privileged"), 3);
  EXPECT_EQ(count("task_post_fork"), 3);
  EXPECT_EQ(count("task_init"), 3);
  EXPECT_EQ(count("task_exit"), 3);
  EXPECT_EQ(count("exit"), 1);
  const auto last_post_fork =
      std::find(hooks.rbegin(), hooks.rend(), std::string("task_post_fork")).base();
  const auto first_task_init = std::find(hooks.begin(), hooks.end(), std::string("task_init"));
  EXPECT_LE(last_post_fork - hooks.begin(), first_task_init - hooks.begin());
  EXPECT_EQ(hooks.back(), "exit");
}

// Nothing of the root helper reaches a task: not its descriptors (the agent's log, the report
// and exits pipes, other tasks' output), and nothing of the task's environment reaches the
// helper's loader while it is root (a job's LD_PRELOAD would otherwise run as root).
TEST_F(SpankTest, NothingOfTheRootHelperLeaksIntoOrFromTheTask) {
  const std::string marker = work_ + "/preload.log";
  std::ofstream(marker).close();
  chmod(marker.c_str(), 0666);
  // Each process says it has its stdout, and names any descriptor beyond stderr it has.
  std::ofstream(work_ + "/fdcheck.sh")
      << "#!/bin/sh\n[ -e /proc/$$/fd/1 ] && echo has-1\n"
      << "for f in 3 4 5 6 7 8 9; do [ -e /proc/$$/fd/$f ] && echo \"open-$f $(readlink "
         "/proc/$$/fd/$f)\"; done\ntrue\n";
  const CommandResult sbatch = Run(
      absl::StrCat("sbatch -W -N1 -n2 -o fds.out --export=ALL,LD_PRELOAD=", SPANK_TEST_PLUGIN_DIR,
                   "/preload_marker.so,CANOPY_PRELOAD_MARKER=", marker,
                   " --wrap 'sh fdcheck.sh; srun -n2 sh fdcheck.sh; echo done'"));
  ASSERT_EQ(sbatch.exit_code, 0) << sbatch.out << sbatch.err << cluster_.AgentLog();
  EXPECT_EQ(ReadFile(work_ + "/fds.out"), "has-1\nhas-1\nhas-1\ndone\n");
  const std::string loaded = ReadFile(marker);
  EXPECT_THAT(loaded, HasSubstr(absl::StrCat("euid=", JobUid(), " ")));  // the job's own
  EXPECT_THAT(loaded, Not(HasSubstr("canopy-spank-task")));
  if (geteuid() == 0) {
    EXPECT_THAT(loaded, Not(HasSubstr("euid=0 ")));
  }
}

// A job whose tasks ignore SIGTERM is SIGKILLed after KillWait, as under Slurm, but each
// task's supervisor outlives its tasks: task_exit runs for every task and exit once per
// supervisor (a plugin that cleans up there, such as a private /tmp, still does).
TEST_F(SpankTest, TasksThatIgnoreSigtermStillGetTheirExitHooks) {
  std::ofstream(work_ + "/stubborn.sh")
      << "#!/bin/sh\ntrap '' TERM\n"
      << "srun -n2 sh -c \"trap '' TERM; echo step-up; exec sleep 300\" &\n"
      << "echo up\nexec sleep 300\n";
  const CommandResult sbatch = Run("sbatch -N1 --parsable -o stubborn.out stubborn.sh");
  ASSERT_EQ(sbatch.exit_code, 0) << sbatch.out << sbatch.err;
  const std::string job(absl::StripAsciiWhitespace(sbatch.out));
  ASSERT_TRUE(WaitUntil(
      [&] {
        const std::string out = ReadFile(work_ + "/stubborn.out");
        return absl::StrContains(out, "up\n") &&
               out.find("step-up") != out.rfind("step-up");  // both ranks
      },
      absl::Seconds(30)))
      << ReadFile(work_ + "/stubborn.out") << cluster_.AgentLog();
  ASSERT_EQ(Run("scancel " + job).exit_code, 0);
  ASSERT_TRUE(WaitUntil(
      [&] {
        return cluster_.FrontEnd("squeue", {"-h", "-t", "all", "-j", job, "-o", "%T"}).out ==
               "CANCELLED\n";
      },
      absl::Seconds(30)))
      << cluster_.AgentLog();
  EXPECT_THAT(cluster_.AgentLog(), HasSubstr("outlived its kill wait: SIGKILL"));
  EXPECT_THAT(cluster_.AgentLog(), Not(HasSubstr("still runs its exit hooks")));
  int task_exits = 0;
  int exits = 0;
  for (const Call& c : ReadCalls(log_)) {
    if (c.context == "remote") {
      task_exits += c.hook == "task_exit" ? 1 : 0;
      exits += c.hook == "exit" ? 1 : 0;
    }
  }
  EXPECT_EQ(task_exits, 3);  // the batch script and the step's two ranks
  EXPECT_EQ(exits, 2);       // the batch script's supervisor and the step's
}

// A plugin that gives each job a private directory: made by its job_prolog (as root, for the
// job's user), bind-mounted by its init_post_opt in a mount namespace the task then inherits.
// What the job writes there never appears in the shared directory.
TEST_F(SpankTest, APrivateTmpPluginWorksThroughTheTaskHelper) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "mount namespaces need root";
  }
  const CommandResult sbatch =
      Run("sbatch -W --parsable -o priv.out --wrap 'echo secret > scratch/mine; ls scratch'");
  ASSERT_EQ(sbatch.exit_code, 0) << sbatch.out << sbatch.err << cluster_.AgentLog();
  EXPECT_EQ(ReadFile(work_ + "/priv.out"), "mine\n");
  EXPECT_FALSE(std::filesystem::exists(work_ + "/scratch/mine"));
  const std::string job_dir =
      absl::StrCat(work_, "/private/", absl::StripAsciiWhitespace(sbatch.out), ".0");
  EXPECT_EQ(ReadFile(job_dir + "/mine"), "secret\n");
  struct stat st;
  ASSERT_EQ(stat(job_dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 65534u);  // chowned to the job's user by job_prolog
}

}  // namespace
}  // namespace canopy::testing
