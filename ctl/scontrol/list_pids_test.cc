// scontrol listpids: the table and messages of Slurm 22.05 (recorded on a real slurmd), and
// how processes are found in /proc (a fake /proc tree here; the integration test reads the
// real one inside a job).
#include "ctl/scontrol/list_pids.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::ctl::scontrol {
namespace {

using ::testing::IsEmpty;

struct ListPidsResult {
  int code;
  std::string out, err;
};

ListPidsResult ListPidsOf(const std::vector<std::string>& args,
                          const std::vector<JobProcess>& processes) {
  std::ostringstream out, err;
  const int code = ListPids(args, processes, ListPidsScope(), out, err);
  return {code, out.str(), err.str()};
}

constexpr char kHeader[] = "PID      JOBID    STEPID   LOCALID GLOBALID\n";

// Job 2 on gpu001: the batch shell (a task), two of its children, step 3's two tasks; job 5
// on gpu002.
std::vector<JobProcess> Sample() {
  return {
      {5724, 2, std::nullopt, "gpu001", std::nullopt, std::nullopt, ""},
      {5737, 2, 3, "gpu001", 1, 1, ""},
      {5504, 2, std::nullopt, "gpu001", 0, 0, ""},
      {5736, 2, 3, "gpu001", 0, 0, ""},
      {5720, 2, std::nullopt, "gpu001", std::nullopt, std::nullopt, ""},
      {6001, 5, std::nullopt, "gpu002", 0, 0, ""},
  };
}

TEST(ListPidsTest, EveryJobInSlurmsTable) {
  ListPidsResult r = ListPidsOf({}, Sample());
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, std::string(kHeader) +
                       "5504     2        batch    0       0       \n"
                       "5720     2        batch    -       -       \n"
                       "5724     2        batch    -       -       \n"
                       "5736     2        3        0       0       \n"
                       "5737     2        3        1       1       \n"
                       "6001     5        batch    0       0       \n");
  EXPECT_THAT(r.err, IsEmpty());
  EXPECT_EQ(ListPidsOf({"*"}, Sample()).out, r.out);
}

TEST(ListPidsTest, OneJobOneStepOneNode) {
  EXPECT_EQ(ListPidsOf({"5"}, Sample()).out,
            std::string(kHeader) + "6001     5        batch    0       0       \n");
  EXPECT_EQ(ListPidsOf({"2.3"}, Sample()).out, std::string(kHeader) +
                                                   "5736     2        3        0       0       \n"
                                                   "5737     2        3        1       1       \n");
  ListPidsResult other_node = ListPidsOf({"2", "gpu002"}, Sample());
  EXPECT_EQ(other_node.code, 1);
  EXPECT_EQ(other_node.out, kHeader);
  EXPECT_EQ(other_node.err, "JobId=2 does not exist on node gpu002.\n");
  EXPECT_EQ(ListPidsOf({"2", "gpu001"}, Sample()).code, 0);
}

TEST(ListPidsTest, SlurmsMessagesForWhatIsNotThere) {
  ListPidsResult job = ListPidsOf({"999999"}, Sample());
  EXPECT_EQ(job.code, 1);
  EXPECT_EQ(job.out, kHeader);
  EXPECT_EQ(job.err, "There are no steps for job 999999 on node (null).\n");
  ListPidsResult step = ListPidsOf({"2.99"}, Sample());
  EXPECT_EQ(step.code, 1);
  EXPECT_EQ(step.err, "StepId=2.99 does not exist on node (null).\n");
  ListPidsResult none = ListPidsOf({}, {});
  EXPECT_EQ(none.code, 1);
  EXPECT_EQ(none.out, kHeader);
  EXPECT_EQ(none.err, "No job steps exist on this node.\n");
}

// Inside a job scontrol lists only its own cluster's and node's processes: another cluster (or
// virtual node) on the same host may run a job with the same id.
TEST(ListPidsTest, InsideAJobOnlyItsClusterAndNode) {
  std::vector<JobProcess> processes = Sample();
  for (JobProcess& p : processes) {
    p.cluster = "a";
  }
  processes.push_back({7001, 2, 3, "gpu001", 0, 0, "b"});  // job 2.3 of cluster b
  std::ostringstream out, err;
  EXPECT_EQ(ListPids({"2.3"}, processes, ListPidsScope{"a", "gpu001"}, out, err), 0);
  EXPECT_EQ(out.str(), std::string(kHeader) +
                           "5736     2        3        0       0       \n"
                           "5737     2        3        1       1       \n");
  std::ostringstream out2, err2;
  EXPECT_EQ(ListPids({"5"}, processes, ListPidsScope{"a", "gpu001"}, out2, err2), 1);
  EXPECT_EQ(err2.str(), "There are no steps for job 5 on node (null).\n");
  std::ostringstream out3, err3;  // a NODENAME argument replaces the caller's node
  EXPECT_EQ(ListPids({"5", "gpu002"}, processes, ListPidsScope{"a", "gpu001"}, out3, err3), 0);
}

TEST(ListPidsTest, BadIdsAsSlurmReadsThem) {
  ListPidsResult abc = ListPidsOf({"abc"}, Sample());
  EXPECT_EQ(abc.code, 1);
  EXPECT_THAT(abc.out, IsEmpty());
  EXPECT_EQ(abc.err, "\"abc\" does not look like a jobid\n");
  EXPECT_EQ(ListPidsOf({"12x"}, Sample()).err, "\"12x\" does not look like a jobid\n");
  // A step that is not a number: the header, the complaint, and exit 0.
  ListPidsResult batch = ListPidsOf({"2.batch"}, Sample());
  EXPECT_EQ(batch.code, 0);
  EXPECT_EQ(batch.out, kHeader);
  EXPECT_EQ(batch.err, "\"2.batch\" does not look like a stepid\n");
}

class ProcTreeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "proc-XXXXXX").string();
    root_ = mkdtemp(tmpl.data());
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  // A process `pid` in session `session` with these environment entries.
  void Add(int pid, int session, const std::vector<std::string>& env, const std::string& comm) {
    const std::string dir = root_ + "/" + std::to_string(pid);
    std::filesystem::create_directories(dir);
    std::ofstream environ(dir + "/environ", std::ios::binary);
    for (const std::string& e : env) {
      environ << e << '\0';
    }
    std::ofstream(dir + "/stat") << pid << " (" << comm << ") S 1 " << session << " " << session
                                 << " 0 -1 4194560\n";
  }

  std::string root_;
};

TEST_F(ProcTreeTest, TasksAreTheSessionLeadersTheAgentStarted) {
  const std::vector<std::string> batch = {"PATH=/bin", "SLURM_JOB_ID=7", "SLURMD_NODENAME=n1",
                                          "SLURM_PROCID=0", "SLURM_LOCALID=0"};
  Add(100, 100, batch, "bash");
  Add(101, 100, batch, "my (odd) name");  // a child: same job and step, not a task
  Add(200, 200,
      {"SLURM_JOB_ID=7", "SLURM_STEP_ID=0", "SLURMD_NODENAME=n1", "SLURM_PROCID=3",
       "SLURM_LOCALID=1"},
      "python");
  Add(300, 300, {"HOME=/root"}, "sshd");  // not in a job
  std::filesystem::create_directories(root_ + "/self");
  std::filesystem::create_directories(root_ + "/400");  // gone, or not readable: skipped

  std::vector<JobProcess> found = ReadJobProcesses(root_);
  ListPidsResult r = ListPidsOf({"7"}, found);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, std::string(kHeader) +
                       "100      7        batch    0       0       \n"
                       "101      7        batch    -       -       \n"
                       "200      7        0        1       3       \n");
  EXPECT_EQ(ListPidsOf({"7", "n2"}, found).code, 1);
}

}  // namespace
}  // namespace canopy::ctl::scontrol
