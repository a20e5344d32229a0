#include "ctl/sbatch/job_spec.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "common/slurm/option_values.h"
#include "gtest/gtest.h"

namespace canopy::ctl::sbatch {
namespace {

SubmitContext Context(const std::string& script) {
  SubmitContext c;
  c.cwd = "/home/alice/run";
  c.short_hostname = "login1";
  c.env = {{"HOME", "/home/alice"}, {"PATH", "/bin"}, {"SLURM_CONF", "/etc/slurm.conf"}};
  c.script = script;
  c.default_name = "train.sh";
  return c;
}

canopy::v1::JobSpec Build(const std::vector<std::string>& argv, SubmitContext c) {
  absl::StatusOr<slurm::SbatchOptions> o = slurm::ParseSbatch(c.script, argv);
  EXPECT_TRUE(o.ok()) << o.status();
  absl::StatusOr<canopy::v1::JobSpec> spec = BuildJobSpec(*o, c);
  EXPECT_TRUE(spec.ok()) << spec.status();
  return *spec;
}

// BuildJobSpec's error for `argv` (which must parse).
absl::Status SpecErrorOf(const std::vector<std::string>& argv, const SubmitContext& c) {
  absl::StatusOr<slurm::SbatchOptions> o = slurm::ParseSbatch(c.script, argv);
  EXPECT_TRUE(o.ok()) << o.status();
  return BuildJobSpec(*o, c).status();
}

TEST(SbatchSpecTest, DirectivesAndCommandLine) {
  const std::string script =
      "#!/bin/bash\n#SBATCH -N 2 --gres=gpu:h100:4\n#SBATCH --time=1:00:00 -J fromscript\n"
      "#SBATCH --switches=1@5:00 --exclusive\nsrun hostname\n";
  canopy::v1::JobSpec spec = Build({"-J",
                                    "cli",
                                    "--ntasks-per-node=4",
                                    "-c",
                                    "2",
                                    "--mem=8G",
                                    "-p",
                                    "gpu",
                                    "-A",
                                    "acct",
                                    "-w",
                                    "gpu[001-002]",
                                    "-x",
                                    "gpu003",
                                    "-o",
                                    "out-%j.txt",
                                    "--open-mode=append",
                                    "--no-requeue",
                                    "-H",
                                    "--qos=high",
                                    "--nice=5",
                                    "--array=1-3%2",
                                    "--signal=B:USR1@90",
                                    "train.sh",
                                    "a",
                                    "b"},
                                   Context(script));
  EXPECT_EQ(spec.name(), "cli");
  EXPECT_EQ(spec.min_nodes(), 2);
  EXPECT_EQ(spec.max_nodes(), 0);
  EXPECT_EQ(spec.ntasks_per_node(), 4);
  EXPECT_EQ(spec.cpus_per_task(), 2);
  EXPECT_EQ(spec.mem_per_node_mib(), 8192);
  EXPECT_EQ(spec.gpus_per_node(), 4);
  EXPECT_EQ(spec.gpu_type(), "h100");
  EXPECT_TRUE(spec.exclusive());
  EXPECT_EQ(spec.time_limit().seconds(), 3600);
  EXPECT_EQ(spec.max_switches(), 1);
  EXPECT_EQ(spec.switches_wait().seconds(), 300);
  EXPECT_EQ(spec.partition(), "gpu");
  EXPECT_EQ(spec.account(), "acct");
  EXPECT_EQ(spec.qos(), "high");
  EXPECT_EQ(spec.required_nodes(), "gpu[001-002]");
  EXPECT_EQ(spec.excluded_nodes(), "gpu003");
  EXPECT_EQ(spec.stdout_path(), "out-%j.txt");
  EXPECT_EQ(spec.stderr_path(), "");
  EXPECT_TRUE(spec.open_append());
  EXPECT_FALSE(spec.requeue());
  EXPECT_TRUE(spec.hold());
  EXPECT_EQ(spec.nice(), 5);
  EXPECT_EQ(spec.array_spec(), "1-3%2");
  EXPECT_EQ(spec.warn_signal(), 10);
  EXPECT_EQ(spec.warn_time().seconds(), 90);
  EXPECT_TRUE(spec.warn_batch_only());
  EXPECT_EQ(spec.script(), script);
  ASSERT_EQ(spec.argv_size(), 2);
  EXPECT_EQ(spec.argv(1), "b");
  EXPECT_EQ(spec.work_dir(), "/home/alice/run");
  EXPECT_EQ(spec.submit_dir(), "/home/alice/run");
  EXPECT_EQ(spec.submit_host(), "login1");
  // The submitter's three, and those sbatch adds (job_variables.h): -c, --mem, the array's
  // shape, its nice value. --gres gives no SLURM_GPUS_PER_NODE.
  EXPECT_EQ(spec.environment().size(), 10u);
  EXPECT_EQ(spec.environment().at("SLURM_CPUS_PER_TASK"), "2");
  EXPECT_EQ(spec.environment().at("SLURM_MEM_PER_NODE"), "8192");
  EXPECT_EQ(spec.environment().at("SLURM_ARRAY_TASK_COUNT"), "3");
  EXPECT_FALSE(spec.environment().contains("SLURM_GPUS_PER_NODE"));
  EXPECT_FALSE(spec.export_none());
}

// sbatch run inside another job: the options' variables win over the enclosing job's, and what
// the enclosing job had that this one did not ask for is dropped (its -n would have srun run its
// task count here). A value the --export list names is the submitter's choice, and stays.
TEST(SbatchSpecTest, AnEnclosingJobsVariablesAreNotPassedOn) {
  SubmitContext c = Context("#!/bin/sh\n");
  c.env = {{"SLURM_CPUS_PER_TASK", "8"}, {"SLURM_PRIO_PROCESS", "19"}, {"SLURM_NTASKS", "8"},
           {"SLURM_RESTART_COUNT", "1"}, {"SLURM_GPUS_PER_NODE", "4"}, {"SLURM_ARRAY_TASK_ID", "3"},
           {"SLURM_JOB_ID", "41"},       {"HOME", "/home/alice"}};
  canopy::v1::JobSpec spec = Build({"-c", "2", "-N2"}, c);
  EXPECT_EQ(
      (std::map<std::string, std::string>{spec.environment().begin(), spec.environment().end()}),
      (std::map<std::string, std::string>{{"SLURM_CPUS_PER_TASK", "2"},
                                          {"SLURM_PRIO_PROCESS", "0"},
                                          {"SLURM_JOB_ID", "41"},  // the node sets its own
                                          {"HOME", "/home/alice"}}));
  spec = Build({"--export=ALL,SLURM_NTASKS=4"}, c);
  EXPECT_EQ(spec.environment().at("SLURM_NTASKS"), "4");
  EXPECT_FALSE(spec.environment().contains("SLURM_RESTART_COUNT"));
}

TEST(SbatchSpecTest, DefaultsAndWrap) {
  SubmitContext c = Context(WrapScript("sleep 1000"));
  c.default_name = "wrap";
  canopy::v1::JobSpec spec = Build({"--wrap", "sleep 1000", "-D", "sub"}, c);
  EXPECT_EQ(spec.name(), "wrap");
  EXPECT_EQ(spec.script(),
            "#!/bin/sh\n# This script was created by sbatch --wrap.\n\nsleep 1000\n");
  EXPECT_EQ(spec.work_dir(), "/home/alice/run/sub");
  EXPECT_TRUE(spec.requeue());
  EXPECT_FALSE(spec.has_time_limit());
  EXPECT_EQ(spec.stdout_path(), "");
  EXPECT_EQ(spec.min_nodes(), 0);
  spec = Build({"--wrap", "x", "-D", "/abs", "-t", "UNLIMITED"}, c);
  EXPECT_EQ(spec.work_dir(), "/abs");
  EXPECT_FALSE(spec.has_time_limit());
}

TEST(SbatchSpecTest, ExportRules) {
  const std::map<std::string, std::string> env = {
      {"HOME", "/h"}, {"PATH", "/bin"}, {"SLURM_CONF", "/c"}};
  canopy::v1::JobSpec spec;
  ApplyExport(std::nullopt, env, spec);
  EXPECT_EQ(spec.environment().size(), 3u);
  EXPECT_FALSE(spec.export_none());

  ApplyExport(slurm::SbatchExport{false, {}, "NONE"}, env, spec);
  EXPECT_TRUE(spec.export_none());
  ASSERT_EQ(spec.environment().size(), 1u);
  EXPECT_EQ(spec.environment().at("SLURM_CONF"), "/c");

  ApplyExport(slurm::SbatchExport{false, {"HOME", "X=1", "MISSING"}, "HOME,X=1,MISSING"}, env,
              spec);
  EXPECT_FALSE(spec.export_none());
  EXPECT_EQ(spec.environment().size(), 3u);
  EXPECT_EQ(spec.environment().at("HOME"), "/h");
  EXPECT_EQ(spec.environment().at("X"), "1");
  EXPECT_FALSE(spec.environment().contains("PATH"));

  ApplyExport(slurm::SbatchExport{true, {"PATH=/x"}, "ALL,PATH=/x"}, env, spec);
  EXPECT_EQ(spec.environment().size(), 3u);
  EXPECT_EQ(spec.environment().at("PATH"), "/x");
}

TEST(SbatchSpecTest, TestOnlyIsARequestFlag) {
  SubmitContext c = Context("#!/bin/sh\ntrue\n");
  absl::StatusOr<slurm::SbatchOptions> o = slurm::ParseSbatch(c.script, {"--test-only"});
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(BuildJobSpec(*o, c).ok());  // not part of the spec
}

TEST(SbatchSpecTest, DependencyBeginAndKillOnInvalidDep) {
  SubmitContext c = Context("#!/bin/sh\n#SBATCH --dependency=afterok:5:7_2\ntrue\n");
  c.now = absl::FromUnixSeconds(1'800'000'000);
  canopy::v1::JobSpec spec = Build({"--begin=now+1hour", "--kill-on-invalid-dep=yes"}, c);
  ASSERT_EQ(spec.dependencies_size(), 2);
  EXPECT_EQ(spec.dependencies(0).type(), canopy::v1::JobDependency::TYPE_AFTER_OK);
  EXPECT_EQ(spec.dependencies(0).job_id(), 5u);
  EXPECT_FALSE(spec.dependencies(0).has_array_task_id());
  EXPECT_EQ(spec.dependencies(1).job_id(), 7u);
  EXPECT_EQ(spec.dependencies(1).array_task_id(), 2u);
  EXPECT_FALSE(spec.dependency_any());
  EXPECT_TRUE(spec.kill_on_invalid_dep());
  EXPECT_EQ(spec.begin_time().seconds(), 1'800'003'600);

  spec = Build({"-d", "after:3+10?singleton"}, Context("#!/bin/sh\ntrue\n"));
  ASSERT_EQ(spec.dependencies_size(), 2);
  EXPECT_TRUE(spec.dependency_any());
  EXPECT_EQ(spec.dependencies(0).type(), canopy::v1::JobDependency::TYPE_AFTER);
  EXPECT_EQ(spec.dependencies(0).delay().seconds(), 600);
  EXPECT_EQ(spec.dependencies(1).type(), canopy::v1::JobDependency::TYPE_SINGLETON);
  EXPECT_FALSE(spec.has_kill_on_invalid_dep());
  EXPECT_FALSE(spec.has_begin_time());
}

// sbatch -N 0: Slurm's controller refuses it ("Node count specification invalid", exit 1).
TEST(SbatchSpecTest, NoNodesIsRefused) {
  SubmitContext c = Context("#!/bin/sh\ntrue\n");
  for (const char* nodes : {"0", "0-0"}) {
    absl::StatusOr<slurm::SbatchOptions> o = slurm::ParseSbatch(c.script, {"-N", nodes});
    ASSERT_TRUE(o.ok()) << nodes;
    EXPECT_EQ(BuildJobSpec(*o, c).status().message(),
              "error: Batch job submission failed: Node count specification invalid")
        << nodes;
  }
  absl::StatusOr<slurm::SbatchOptions> o = slurm::ParseSbatch(c.script, {"-N", "2"});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(BuildJobSpec(*o, c)->min_nodes(), 2);
}

TEST(SbatchSpecTest, BadDependencyAndBeginNameTheProblem) {
  SubmitContext c = Context("#!/bin/sh\ntrue\n");
  absl::StatusOr<slurm::SbatchOptions> o = slurm::ParseSbatch(c.script, {"-d", "afterok:x"});
  ASSERT_TRUE(o.ok());
  absl::StatusOr<canopy::v1::JobSpec> spec = BuildJobSpec(*o, c);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().message(),
            "error: --dependency='afterok:x': expected a job id at 'x' (expected "
            "TYPE:JOBID[_TASK][+MINUTES][:JOBID...] items joined by ',' (all must be satisfied) "
            "or '?' (any one), TYPE one of after, afterany, afterok, afternotok, aftercorr; or "
            "singleton)\nerror: Batch job submission failed: Job dependency problem");
  o = slurm::ParseSbatch(c.script, {"--begin=25:00"});
  ASSERT_TRUE(o.ok());
  spec = BuildJobSpec(*o, c);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().message().substr(0, 79),
            "error: Invalid --begin specification: Invalid time specification (pos=2): 25:00");
}

TEST(SbatchSpecTest, ScriptWithoutShebangIsRejectedAsSbatchDoes) {
  absl::StatusOr<slurm::SbatchOptions> o = slurm::ParseSbatch("echo hi\n", {});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(),
            "error: This does not look like a batch script.  The first\n"
            "error: line must start with #! followed by the path to an interpreter.\n"
            "error: For instance: #!/bin/sh");
}

TEST(SbatchSpecTest, RecordedOptions) {
  SubmitContext c = Context("#!/bin/sh\n#SBATCH --comment=\"from script\"\ntrue\n");
  c.now = absl::FromUnixSeconds(1'800'000'000);
  canopy::v1::JobSpec spec =
      Build({"--wckey=proj", "--mail-type=END,BEGIN", "--mail-user=a@b.c", "--reservation=maint",
             "--deadline=now+2hours", "--delay-boot=5", "--container=/oci", "--cpus-per-gpu=4",
             "--gpu-bind=closest", "-O", "--exclusive=user", "--hint=nomultithread", "-m", "cyclic",
             "--propagate=CORE"},
            c);
  EXPECT_EQ(spec.comment(), "from script");
  EXPECT_EQ(spec.wckey(), "proj");
  EXPECT_EQ(spec.mail_type(), "BEGIN,END");
  EXPECT_EQ(spec.mail_user(), "a@b.c");
  EXPECT_EQ(spec.reservation(), "maint");
  EXPECT_EQ(spec.deadline().seconds(), 1'800'007'200);
  EXPECT_EQ(spec.delay_boot().seconds(), 300);
  EXPECT_EQ(spec.container(), "/oci");
  EXPECT_EQ(spec.cpus_per_gpu(), 4);
  EXPECT_EQ(spec.gpu_bind(), "closest");
  EXPECT_TRUE(spec.overcommit());
  EXPECT_TRUE(spec.exclusive());
  EXPECT_EQ(spec.exclusive_mode(), "user");
  EXPECT_FALSE(spec.has_run_as_uid());

  spec = Build({"--mail-type=NONE", "--exclusive=oversubscribe"}, Context("#!/bin/sh\ntrue\n"));
  EXPECT_EQ(spec.mail_type(), "NONE");
  EXPECT_FALSE(spec.exclusive());
  EXPECT_EQ(spec.exclusive_mode(), "oversubscribe");
  spec = Build({}, Context("#!/bin/sh\ntrue\n"));
  EXPECT_EQ(spec.mail_type(), "");
  EXPECT_FALSE(spec.has_deadline());
  EXPECT_FALSE(spec.has_delay_boot());
  EXPECT_EQ(spec.exclusive_mode(), "");
}

// How the job asked for its GPUs is kept (scontrol TresPerJob=, TresPerNode=, TresPerTask=),
// beside the per-node count placement uses.
TEST(SbatchSpecTest, GpusPerJobIsKeptBesideThePerNodeCountWorkedOutOfIt) {
  const SubmitContext c = Context("#!/bin/sh\ntrue\n");
  canopy::v1::JobSpec spec = Build({"--gpus=3", "-N", "2"}, c);
  EXPECT_EQ(spec.gpus_per_job(), 3);
  EXPECT_EQ(spec.gpus_per_node(), 2);
  EXPECT_FALSE(spec.gpus_per_node_requested());
  spec = Build({"-G", "2", "--gpus-per-node=1", "-N", "2"}, c);
  EXPECT_EQ(spec.gpus_per_job(), 2);
  EXPECT_EQ(spec.gpus_per_node(), 1);
  EXPECT_TRUE(spec.gpus_per_node_requested());
  spec = Build({"--gpus-per-node=4"}, c);
  EXPECT_EQ(spec.gpus_per_job(), 0);
  EXPECT_TRUE(spec.gpus_per_node_requested());
  spec = Build({"--gpus-per-task=1"}, c);
  EXPECT_FALSE(spec.gpus_per_node_requested());
}

TEST(SbatchSpecTest, GpusPerTaskAndMemPerGpu) {
  const SubmitContext c = Context("#!/bin/sh\ntrue\n");
  canopy::v1::JobSpec spec = Build({"--gpus-per-task=2", "--ntasks-per-node=4"}, c);
  EXPECT_EQ(spec.gpus_per_task(), 2);
  EXPECT_EQ(spec.gpus_per_node(), 8);
  spec = Build({"--gpus-per-task=h100:1", "-n", "6", "-N", "2", "--mem-per-gpu=10G"}, c);
  EXPECT_EQ(spec.gpus_per_node(), 3);
  EXPECT_EQ(spec.gpu_type(), "h100");
  EXPECT_EQ(spec.mem_per_gpu_mib(), 10240);
  EXPECT_EQ(spec.mem_per_node_mib(), 3 * 10240);
  spec = Build({"--gpus-per-task=1"}, c);  // one task per node by default
  EXPECT_EQ(spec.gpus_per_node(), 1);
  // An explicit per-node count wins; --mem-per-gpu without GPUs per node is only recorded.
  spec = Build({"--gpus-per-task=1", "--gres=gpu:4", "-n", "8"}, c);
  EXPECT_EQ(spec.gpus_per_node(), 4);
  EXPECT_TRUE(spec.gpus_per_node_requested());
  spec = Build({"--mem-per-gpu=1G"}, c);
  EXPECT_EQ(spec.mem_per_gpu_mib(), 1024);
  EXPECT_EQ(spec.mem_per_node_mib(), 0);
}

TEST(SbatchSpecTest, UidAndGidAreForRoot) {
  SubmitContext c = Context("#!/bin/sh\ntrue\n");
  c.caller_uid = 1000;
  absl::Status s = SpecErrorOf({"--uid=alice"}, c);
  EXPECT_EQ(s.message(), "error: --uid only permitted by root user");
  EXPECT_EQ(slurm::ExitCodeOf(s), 255);
  EXPECT_EQ(SpecErrorOf({"--gid=7"}, c).message(), "error: --gid only permitted by root user");
  c.caller_uid = 0;
  c.lookup_user = [](const std::string& name) {
    return name == "alice" ? std::optional<uint32_t>(1001) : std::nullopt;
  };
  canopy::v1::JobSpec spec = Build({"--uid=alice", "--gid=7"}, c);
  EXPECT_EQ(spec.run_as_uid(), 1001u);
  EXPECT_EQ(spec.run_as_gid(), 7u);
  EXPECT_EQ(SpecErrorOf({"--uid=nobody-here"}, c).message(), "error: Invalid --uid specification");
  EXPECT_EQ(SpecErrorOf({"--gid=staff"}, c).message(), "error: Invalid --gid specification");
}

TEST(SbatchSpecTest, DeadlineAndPropagateErrors) {
  SubmitContext c = Context("#!/bin/sh\ntrue\n");
  c.now = absl::FromUnixSeconds(1'800'000'000);
  absl::Status s = SpecErrorOf({"--deadline=25:00"}, c);
  EXPECT_EQ(s.message(),
            "error: Invalid time specification (pos=2): 25:00\n"
            "error: Invalid --deadline specification");
  EXPECT_EQ(slurm::ExitCodeOf(s), 255);
  s = SpecErrorOf({"--begin=now+2hours", "--deadline=now+1hour"}, c);
  EXPECT_EQ(s.message(), "error: Incompatible begin and deadline time specification");
  EXPECT_EQ(slurm::ExitCodeOf(s), 1);
  s = SpecErrorOf({"--propagate=BOGUS"}, c);
  EXPECT_EQ(s.message(), "error: Bad rlimit name: BOGUS\nerror: --propagate=BOGUS is not valid.");
  EXPECT_EQ(slurm::ExitCodeOf(s), 1);
  // sbatch only looks at --propagate without --get-user-env.
  EXPECT_TRUE(SpecErrorOf({"--propagate=BOGUS", "--get-user-env"}, c).ok());
}

TEST(SbatchSpecTest, GetUserEnvAndExportFile) {
  SubmitContext c = Context("#!/bin/sh\ntrue\n");
  canopy::v1::JobSpec spec = Build({"--get-user-env"}, c);
  EXPECT_EQ(spec.environment().at("SLURM_GET_USER_ENV"), "1");
  EXPECT_EQ(spec.environment().at("HOME"), "/home/alice");
  EXPECT_FALSE(Build({}, c).environment().contains("SLURM_GET_USER_ENV"));
  EXPECT_FALSE(Build({"--export=ALL"}, c).environment().contains("SLURM_EXPORT_ENV"));
  // NONE and lists: the login environment is loaded on the node, and the job sees what was asked
  // (as Slurm 22.05's jobs did on this machine: SLURM_EXPORT_ENV=NONE, =FOO=1).
  spec = Build({"--export=NONE"}, c);
  EXPECT_EQ(spec.environment().at("SLURM_GET_USER_ENV"), "1");
  EXPECT_EQ(spec.environment().at("SLURM_EXPORT_ENV"), "NONE");
  spec = Build({"--export=HOME,FOO=1"}, c);
  EXPECT_EQ(spec.environment().at("SLURM_GET_USER_ENV"), "1");
  EXPECT_EQ(spec.environment().at("SLURM_EXPORT_ENV"), "HOME,FOO=1");
  spec = Build({"--export=FOO=1,ALL"}, c);
  EXPECT_EQ(spec.environment().at("SLURM_GET_USER_ENV"), "1");
  EXPECT_EQ(spec.environment().at("SLURM_EXPORT_ENV"), "FOO=1,ALL");
  EXPECT_EQ(spec.environment().at("HOME"), "/home/alice");  // ALL: the submitter's too
  EXPECT_FALSE(Build({"--export=all"}, c).environment().contains("SLURM_GET_USER_ENV"));

  // The file's variables replace sbatch's environment.
  c.export_file_env = ParseExportFile("A=1\nB=x=y\nnot-a-var\n=skipped\n");
  spec = Build({"--export-file=/tmp/env"}, c);
  EXPECT_EQ(spec.environment().size(), 3u);  // and SLURM_PRIO_PROCESS
  EXPECT_EQ(spec.environment().at("A"), "1");
  EXPECT_EQ(spec.environment().at("B"), "x=y");
  spec = Build({"--export-file=/tmp/env", "--export=ALL,C=3"}, c);
  // A, B, C, SLURM_GET_USER_ENV, SLURM_EXPORT_ENV, SLURM_PRIO_PROCESS
  EXPECT_EQ(spec.environment().size(), 6u);
  EXPECT_EQ(spec.environment().at("C"), "3");
}

TEST(SbatchSpecTest, ExportFileFormats) {
  const std::string nul_separated("A=1\nstill A\0B=2\0", 16);
  std::map<std::string, std::string> vars = ParseExportFile(nul_separated);
  EXPECT_EQ(vars.size(), 2u);
  EXPECT_EQ(vars.at("A"), "1\nstill A");
  EXPECT_EQ(vars.at("B"), "2");
  EXPECT_TRUE(ParseExportFile("").empty());
}

TEST(SbatchSpecTest, ParentJobIdIsOnlyAnEnvironmentVariable) {
  // sbatch inside a job: like Slurm's sbatch, the parent's SLURM_JOB_ID/SLURM_JOBID travel in
  // the exported environment only, and the agent overwrites them with the new job's (its SLURM_*
  // variables are set over the environment, agent/runtime/job_environment.cc). Nothing else in
  // the spec refers to the parent.
  SubmitContext c = Context("#!/bin/sh\ntrue\n");
  c.env["SLURM_JOB_ID"] = "41";
  c.env["SLURM_JOBID"] = "41";
  c.env["SLURM_ARRAY_JOB_ID"] = "40";
  canopy::v1::JobSpec spec = Build({}, c);
  EXPECT_EQ(spec.environment().at("SLURM_JOB_ID"), "41");
  EXPECT_TRUE(spec.dependencies().empty());
  EXPECT_EQ(spec.array_spec(), "");
  EXPECT_EQ(spec.name(), "train.sh");
}

}  // namespace
}  // namespace canopy::ctl::sbatch
