// SpankHost and the spank_* API with real plugins (test_plugins/*.c, built against the system's
// spank.h) loaded into this test binary, which exports the API as canopy-agent does.
#include "plugins/spank/spank_host.h"

#include <stdlib.h>
#include <unistd.h>

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/spank/spank_handle.h"

namespace canopy::spank {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

PlugStackEntry Entry(const std::string& plugin, bool required = true,
                     std::vector<std::string> args = {}) {
  PlugStackEntry entry;
  entry.required = required;
  entry.path = absl::StrCat(SPANK_TEST_PLUGIN_DIR, "/", plugin, ".so");
  entry.args = std::move(args);
  entry.origin = "plugstack.conf:1";
  return entry;
}

// Everything the plugins log, for the assertions.
class LogCapture {
 public:
  LogCapture() {
    SetLogSink([this](LogLevel, const std::string& message) { lines.push_back(message); });
  }
  ~LogCapture() {
    SetLogSink([](LogLevel, const std::string&) {});
  }
  std::vector<std::string> lines;
};

TEST(SpankHostTest, RefusesAPluginBuiltForAnotherRelease) {
  absl::StatusOr<std::unique_ptr<SpankHost>> host =
      SpankHost::Load(S_CTX_REMOTE, {Entry("old_release")});
  ASSERT_FALSE(host.ok());
  EXPECT_THAT(host.status().message(), HasSubstr("Failed to load plugin"));
  EXPECT_THAT(host.status().message(),
              HasSubstr("Incompatible Slurm plugin version (21.08.5); rebuild it against Slurm "
                        "22.05's spank.h"));
}

TEST(SpankHostTest, AnOptionalPluginThatCannotLoadIsLeftOut) {
  LogCapture log;
  absl::StatusOr<std::unique_ptr<SpankHost>> host =
      SpankHost::Load(S_CTX_REMOTE, {Entry("no_such_plugin", false), Entry("greeting", true)});
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_TRUE((*host)->Has(Hook::kTaskInit));
  ASSERT_EQ(log.lines.size(), 1u);
  EXPECT_THAT(log.lines[0], HasSubstr("Failed to load optional plugin"));
  EXPECT_THAT(log.lines[0], HasSubstr("Ignored."));
}

TEST(SpankHostTest, ARequiredPluginThatCannotLoadFailsTheStack) {
  absl::StatusOr<std::unique_ptr<SpankHost>> host =
      SpankHost::Load(S_CTX_REMOTE, {Entry("no_such_plugin")});
  ASSERT_FALSE(host.ok());
  EXPECT_THAT(host.status().message(), HasSubstr("no_such_plugin.so"));
}

TEST(SpankHostTest, APluginPathPluginDirDoesNotHaveIsNotFound) {
  PlugStackEntry entry = Entry("greeting");
  entry.path = "greeting.so";  // relative: not found in PluginDir by the parser
  absl::StatusOr<std::unique_ptr<SpankHost>> host = SpankHost::Load(S_CTX_REMOTE, {entry});
  ASSERT_FALSE(host.ok());
  EXPECT_THAT(host.status().message(), HasSubstr("greeting.so: not found in PluginDir"));
}

TEST(SpankHostTest, SlurmdContextLoadsOnlyPluginsWithSlurmdHooks) {
  absl::StatusOr<std::unique_ptr<SpankHost>> host = SpankHost::Load(
      S_CTX_SLURMD, {Entry("fail_task_init"), Entry("callback_order", true, {"log=/dev/null"})});
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_FALSE((*host)->Has(Hook::kTaskInit) && !(*host)->Has(Hook::kSlurmdExit));
  EXPECT_TRUE((*host)->Has(Hook::kSlurmdExit));
  EXPECT_EQ(spank_context(), S_CTX_SLURMD);
}

// The agent asks, from the one load of its slurmd stack, which hooks any plugin has (whether
// its prolog must run job_prolog hooks), including those of plugins the context leaves out.
TEST(SpankHostTest, HooksOfPluginsTheContextLeavesOutAreStillKnown) {
  std::set<Hook> hooks;
  absl::StatusOr<std::unique_ptr<SpankHost>> host =
      SpankHost::Load(S_CTX_SLURMD, {Entry("renice", true, {"prio=7"})}, &hooks);
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_TRUE((*host)->empty());  // no init, no slurmd_exit
  EXPECT_EQ(hooks, std::set<Hook>{Hook::kTaskInitPrivileged});
}

TEST(SpankHostTest, OptionsRegisteredInInitAndFromTheStaticTable) {
  absl::StatusOr<std::unique_ptr<SpankHost>> host =
      SpankHost::Load(S_CTX_LOCAL, {Entry("greeting")});
  ASSERT_TRUE(host.ok()) << host.status();
  SpankHost& h = **host;
  ASSERT_EQ(h.options().size(), 1u);  // the static table, at load
  EXPECT_EQ(h.options()[0].name, "canopy-shout");
  ASSERT_TRUE(h.Run(Hook::kInit).ok());
  ASSERT_EQ(h.options().size(), 2u);
  EXPECT_EQ(h.options()[1].name, "canopy-greeting");
  EXPECT_EQ(h.options()[1].arginfo, "NAME");
  EXPECT_EQ(h.options()[1].plugin, "greeting");

  absl::Status rejected = h.SetOption("canopy-greeting", "nobody");
  EXPECT_EQ(rejected.message(), "Invalid --canopy-greeting argument: nobody");
  ASSERT_TRUE(h.SetOption("canopy-greeting", "ada").ok());
  ASSERT_TRUE(h.SetOption("canopy-shout", "").ok());
  EXPECT_THAT(h.OptionEnvironment(),
              ElementsAre("_SLURM_SPANK_OPTION_greeting_canopy_shout=",
                          "_SLURM_SPANK_OPTION_greeting_canopy_greeting=ada"));
}

TEST(SpankHostTest, AllocatorContextIgnoresStaticTables) {
  absl::StatusOr<std::unique_ptr<SpankHost>> host =
      SpankHost::Load(S_CTX_ALLOCATOR, {Entry("greeting")});
  ASSERT_TRUE(host.ok());
  ASSERT_TRUE((*host)->Run(Hook::kInit).ok());
  ASSERT_EQ((*host)->options().size(), 1u);
  EXPECT_EQ((*host)->options()[0].name, "canopy-greeting");
}

// The remote side of one task: options arrive in the job's environment, the plugin reads them
// and its items, and changes the environment the task starts with.
TEST(SpankHostTest, RemoteTaskGetsOptionsItemsAndEnvironment) {
  absl::StatusOr<std::unique_ptr<SpankHost>> host =
      SpankHost::Load(S_CTX_REMOTE, {Entry("greeting"), Entry("prepend_argv")});
  ASSERT_TRUE(host.ok()) << host.status();
  SpankHost& h = **host;
  h.env() = {"PATH=/usr/bin", "_SLURM_SPANK_OPTION_greeting_canopy_greeting=grace",
             "_SLURM_SPANK_OPTION_greeting_canopy_shout="};
  h.argv() = {"/bin/true", "x"};
  JobItems& job = h.job();
  job.uid = 1234;
  job.job_id = 77;
  job.step_id = 2;
  job.nnodes = 4;
  job.node_id = 3;
  job.local_task_count = 2;
  job.total_task_count = 8;
  job.global_task_ids = {6, 7};
  job.task_pids = {0, 0};
  ASSERT_TRUE(h.Run(Hook::kInit).ok());
  ASSERT_TRUE(h.TakeOptionsFromEnv().ok());
  EXPECT_THAT(h.env(), ElementsAre("PATH=/usr/bin"));  // carriers removed
  ASSERT_TRUE(h.Run(Hook::kInitPostOpt).ok());
  TaskItems task;
  task.local_id = 1;
  ASSERT_TRUE(h.Run(Hook::kTaskInit, &task).ok());
  EXPECT_THAT(h.env(), Contains("CANOPY_GREETING=HELLO GRACE"));
  EXPECT_THAT(h.env(), Contains("CANOPY_SPANK_ITEMS=job=77 step=2 nnodes=4 nodeid=3 local=2 "
                                "total=8 task=1 global=7 uid=1234"));
  EXPECT_THAT(h.argv(), ElementsAre("/usr/bin/env", "CANOPY_PREPENDED=yes", "/bin/true", "x"));
}

TEST(SpankHostTest, AFailingRequiredPluginStopsTheStackWithSlurmsMessage) {
  LogCapture log;
  absl::StatusOr<std::unique_ptr<SpankHost>> host =
      SpankHost::Load(S_CTX_REMOTE, {Entry("fail_task_init"), Entry("greeting")});
  ASSERT_TRUE(host.ok());
  SpankHost& h = **host;
  h.env() = {"CANOPY_FAIL_TASK_INIT=1"};
  TaskItems task;
  absl::Status s = h.Run(Hook::kTaskInit, &task);
  EXPECT_EQ(s.message(),
            "spank: required plugin fail_task_init: slurm_spank_task_init() failed with rc=-7");
  EXPECT_THAT(log.lines, Contains("fail_task_init: failing task_init as asked (1)"));
  // The stack stopped: greeting never set its variables.
  EXPECT_THAT(h.env(), Not(Contains(HasSubstr("CANOPY_SPANK_ITEMS"))));
}

TEST(SpankHostTest, AFailingOptionalPluginIsOnlyLogged) {
  LogCapture log;
  absl::StatusOr<std::unique_ptr<SpankHost>> host =
      SpankHost::Load(S_CTX_REMOTE, {Entry("fail_task_init", false), Entry("greeting")});
  ASSERT_TRUE(host.ok());
  (*host)->env() = {"CANOPY_FAIL_TASK_INIT=1"};
  TaskItems task;
  EXPECT_TRUE((*host)->Run(Hook::kTaskInit, &task).ok());
  EXPECT_THAT((*host)->env(), Contains(HasSubstr("CANOPY_SPANK_ITEMS")));
}

// The API's answers outside the hooks' usual paths, with a handle made here.
TEST(SpankApiTest, ContextRulesOfSlurm2205) {
  absl::StatusOr<std::unique_ptr<SpankHost>> host = SpankHost::Load(S_CTX_LOCAL, {});
  ASSERT_TRUE(host.ok());
  spank_handle handle;
  handle.host = host->get();
  handle.hook = Hook::kInitPostOpt;
  char buffer[16];
  EXPECT_EQ(spank_getenv(&handle, "HOME", buffer, sizeof buffer), ESPANK_NOT_REMOTE);
  EXPECT_EQ(spank_setenv(&handle, "X", "1", 1), ESPANK_NOT_REMOTE);
  EXPECT_EQ(spank_remote(&handle), 0);
  int task = 0;
  EXPECT_EQ(spank_get_item(&handle, S_TASK_ID, &task), ESPANK_NOT_REMOTE);
  uint32_t job_id = 0;
  EXPECT_EQ(spank_get_item(&handle, S_JOB_ID, &job_id), ESPANK_NOT_AVAIL);
  char* version = nullptr;
  ASSERT_EQ(spank_get_item(&handle, S_SLURM_VERSION_MAJOR, &version), ESPANK_SUCCESS);
  EXPECT_STREQ(version, "22");
  ASSERT_EQ(spank_get_item(&handle, S_SLURM_VERSION_MINOR, &version), ESPANK_SUCCESS);
  EXPECT_STREQ(version, "05");

  EXPECT_EQ(spank_job_control_setenv(&handle, "TMPDIR_BASE", "/scratch", 1), ESPANK_SUCCESS);
  EXPECT_EQ(spank_job_control_setenv(&handle, "TMPDIR_BASE", "/other", 0), ESPANK_SUCCESS);
  EXPECT_EQ(spank_job_control_getenv(&handle, "TMPDIR_BASE", buffer, 4), ESPANK_NOSPACE);
  ASSERT_EQ(spank_job_control_getenv(&handle, "TMPDIR_BASE", buffer, sizeof buffer),
            ESPANK_SUCCESS);
  EXPECT_STREQ(buffer, "/scratch");

  spank_handle forged;
  forged.magic = 0;
  forged.host = host->get();
  EXPECT_EQ(spank_remote(&forged), -1);
  EXPECT_STREQ(spank_strerror(ESPANK_NOT_TASK), "Not in task context");
  EXPECT_EQ(spank_symbol_supported("slurm_spank_task_init_privileged"), 1);
  EXPECT_EQ(spank_symbol_supported("slurm_spank_nonsense"), 0);
}

TEST(SpankApiTest, RemoteEnvironmentAndTaskItems) {
  absl::StatusOr<std::unique_ptr<SpankHost>> host = SpankHost::Load(S_CTX_REMOTE, {});
  ASSERT_TRUE(host.ok());
  SpankHost& h = **host;
  h.env() = {"A=1"};
  h.job().global_task_ids = {4};
  h.job().task_pids = {4321};
  spank_handle handle;
  handle.host = &h;
  handle.hook = Hook::kUserInit;
  char buffer[2];
  EXPECT_EQ(spank_getenv(&handle, "A", buffer, sizeof buffer), ESPANK_SUCCESS);
  EXPECT_EQ(spank_getenv(&handle, "B", buffer, sizeof buffer), ESPANK_ENV_NOEXIST);
  EXPECT_EQ(spank_setenv(&handle, "A", "2", 0), ESPANK_ENV_EXISTS);
  EXPECT_EQ(spank_setenv(&handle, "A", "22", 1), ESPANK_SUCCESS);
  EXPECT_EQ(spank_getenv(&handle, "A", buffer, sizeof buffer), ESPANK_NOSPACE);
  EXPECT_EQ(spank_unsetenv(&handle, "A"), ESPANK_SUCCESS);
  EXPECT_THAT(h.env(), IsEmpty());
  EXPECT_EQ(spank_job_control_setenv(&handle, "X", "1", 1), ESPANK_NOT_LOCAL);

  int task = 0;
  EXPECT_EQ(spank_get_item(&handle, S_TASK_ID, &task), ESPANK_NOT_TASK);
  uint32_t id = 0;
  EXPECT_EQ(spank_get_item(&handle, S_JOB_PID_TO_GLOBAL_ID, pid_t{4321}, &id), ESPANK_NOT_EXECD);
  TaskItems exited;
  exited.exit_status = 256;
  handle.hook = Hook::kTaskExit;
  handle.task = &exited;
  int status = 0;
  ASSERT_EQ(spank_get_item(&handle, S_TASK_EXIT_STATUS, &status), ESPANK_SUCCESS);
  EXPECT_EQ(status, 256);
  ASSERT_EQ(spank_get_item(&handle, S_JOB_PID_TO_GLOBAL_ID, pid_t{4321}, &id), ESPANK_SUCCESS);
  EXPECT_EQ(id, 4u);
  EXPECT_EQ(spank_get_item(&handle, S_JOB_PID_TO_LOCAL_ID, pid_t{99}, &id), ESPANK_NOEXIST);
  uint64_t mem = 0;
  EXPECT_EQ(spank_get_item(&handle, S_JOB_ALLOC_MEM, &mem), ESPANK_NOT_AVAIL);
  h.job().job_alloc_mem_mb = 2048;
  ASSERT_EQ(spank_get_item(&handle, S_JOB_ALLOC_MEM, &mem), ESPANK_SUCCESS);
  EXPECT_EQ(mem, 2048u);
}

}  // namespace
}  // namespace canopy::spank
