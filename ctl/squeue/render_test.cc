// squeue's output for the jobs A-F of tests/data/slurm-reference/cli-outputs-22.05.txt, compared
// byte for byte with what Slurm 22.05 printed there.
#include "ctl/squeue/render.h"

#include "ctl/squeue/rows.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::ctl::squeue {
namespace {

constexpr int64_t kRenderNow = 1796204622;  // 2026-12-02T09:43:42Z

class SqueueFormatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    jobs_.mutable_server_time()->set_seconds(kRenderNow);
    // Ordered by job id, as ListJobs answers.
    Add(1, "jobA", canopy::v1::JOB_STATE_RUNNING, 17, -5, -3, {"gpu001", "gpu002"}, 4, 60);
    Add(2, "jobB", canopy::v1::JOB_STATE_RUNNING, 8, -5, -3, {"gpu003"}, 8);
    Add(3, "jobC", canopy::v1::JOB_STATE_RUNNING, 8, -5, -3, {"gpu001"}, 0);
    Add(4, "jobE", canopy::v1::JOB_STATE_PENDING, 0, -5, 0, {}, 0, 0, "JobHeldUser");
    Add(5, "jobF", canopy::v1::JOB_STATE_RUNNING, 8, -5, -3, {"gpu001"}, 1, 0, "None", 5, 3);
    Add(6, "jobF", canopy::v1::JOB_STATE_RUNNING, 8, -5, -3, {"gpu001"}, 1, 0, "None", 5, 1);
    Add(7, "jobF", canopy::v1::JOB_STATE_RUNNING, 8, -5, -3, {"gpu001"}, 1, 0, "None", 5, 2);
    canopy::v1::Job* d =
        Add(8, "jobD", canopy::v1::JOB_STATE_PENDING, 615, -2, 0, {}, 0, 0, "PartitionNodeLimit");
    d->mutable_spec()->set_min_nodes(70);
    Add(9, "parsable", canopy::v1::JOB_STATE_RUNNING, 8, -2, 0, {"gpu001"}, 0);
    Add(10, "plain", canopy::v1::JOB_STATE_RUNNING, 8, -2, 0, {"gpu001"}, 0);
  }

  canopy::v1::Job* Add(uint32_t id, const std::string& name, canopy::v1::JobState state,
                       uint32_t priority, int submit_offset, int start_offset,
                       std::vector<std::string> nodes, int gpus, int limit_minutes = 0,
                       const std::string& reason = "None", uint32_t array_job = 0,
                       uint32_t array_task = 0) {
    canopy::v1::Job* j = jobs_.add_jobs();
    j->set_job_id(id);
    j->mutable_spec()->set_name(name);
    j->set_state(state);
    j->set_priority(priority);
    j->set_user_name("root");
    j->set_partition("gpu");
    j->set_reason(reason);
    j->mutable_submit_time()->set_seconds(kRenderNow + submit_offset);
    if (state != canopy::v1::JOB_STATE_PENDING) {
      j->mutable_start_time()->set_seconds(kRenderNow + start_offset);
    }
    for (const std::string& n : nodes) {
      j->add_nodes(n);
    }
    j->mutable_spec()->set_gpus_per_node(gpus);
    if (limit_minutes > 0) {
      j->mutable_time_limit()->set_seconds(limit_minutes * 60);
    }
    j->set_array_job_id(array_job);
    j->set_array_task_id(array_task);
    return j;
  }

  std::string Render(const std::vector<std::string>& args) {
    absl::StatusOr<SqueueOptions> o = ParseSqueueArgs(args);
    EXPECT_TRUE(o.ok()) << o.status();
    return RenderSqueue(*o, jobs_, absl::UTCTimeZone());
  }

  canopy::v1::ListJobsResponse jobs_;
};

TEST_F(SqueueFormatTest, DefaultMatchesSlurm) {
  EXPECT_EQ(
      Render({}),
      "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"
      "                 8       gpu     jobD     root PD       0:00     70 (PartitionNodeLimit)\n"
      "                 4       gpu     jobE     root PD       0:00      1 (JobHeldUser)\n"
      "                 1       gpu     jobA     root  R       0:03      2 gpu[001-002]\n"
      "                 9       gpu parsable     root  R       0:00      1 gpu001\n"
      "                10       gpu    plain     root  R       0:00      1 gpu001\n"
      "                 2       gpu     jobB     root  R       0:03      1 gpu003\n"
      "                 3       gpu     jobC     root  R       0:03      1 gpu001\n"
      "               5_1       gpu     jobF     root  R       0:03      1 gpu001\n"
      "               5_2       gpu     jobF     root  R       0:03      1 gpu001\n"
      "               5_3       gpu     jobF     root  R       0:03      1 gpu001\n");
}

// The reference's jobs have no reservation: N/A and (null), in job id order.
TEST_F(SqueueFormatTest, StartMatchesSlurm) {
  EXPECT_EQ(Render({"--start"}),
            "             JOBID PARTITION     NAME     USER ST          START_TIME  NODES "
            "SCHEDNODES           NODELIST(REASON)\n"
            "                 4       gpu     jobE     root PD                 N/A      1 "
            "(null)               (JobHeldUser)\n"
            "                 8       gpu     jobD     root PD                 N/A     70 "
            "(null)               (PartitionNodeLimit)\n");
}

// A reserved job shows when and where backfill expects to start it.
TEST_F(SqueueFormatTest, StartShowsReservations) {
  canopy::v1::Job* j =
      Add(11, "big", canopy::v1::JOB_STATE_PENDING, 900, -1, 0, {}, 8, 0, "Resources");
  j->mutable_expected_start()->set_seconds(kRenderNow + 3600);
  j->add_expected_nodes("gpu001");
  j->add_expected_nodes("gpu002");
  EXPECT_EQ(Render({"--start", "-h"}),
            "                 4       gpu     jobE     root PD                 N/A      1 "
            "(null)               (JobHeldUser)\n"
            "                 8       gpu     jobD     root PD                 N/A     70 "
            "(null)               (PartitionNodeLimit)\n"
            "                11       gpu      big     root PD 2026-12-02T10:43:42      1 "
            "gpu[001-002]         (Resources)\n");
  EXPECT_EQ(Render({"-h", "-j", "11", "-o", "%i %S %Y"}), "11 2026-12-02T10:43:42 gpu[001-002]\n");
}

TEST_F(SqueueFormatTest, PlainFieldsMatchSlurm) {
  EXPECT_EQ(Render({"-o", "%i %T %N"}),
            "JOBID STATE NODELIST\n"
            "8 PENDING \n"
            "4 PENDING \n"
            "1 RUNNING gpu[001-002]\n"
            "9 RUNNING gpu001\n"
            "10 RUNNING gpu001\n"
            "2 RUNNING gpu003\n"
            "3 RUNNING gpu001\n"
            "5_1 RUNNING gpu001\n"
            "5_2 RUNNING gpu001\n"
            "5_3 RUNNING gpu001\n");
}

TEST_F(SqueueFormatTest, LongMatchesSlurm) {
  EXPECT_EQ(
      Render({"-l"}),
      "Wed Dec 02 09:43:42 2026\n"
      "             JOBID PARTITION     NAME     USER    STATE       TIME TIME_LIMI  NODES "
      "NODELIST(REASON)\n"
      "                 8       gpu     jobD     root  PENDING       0:00 UNLIMITED     70 "
      "(PartitionNodeLimit)\n"
      "                 4       gpu     jobE     root  PENDING       0:00 UNLIMITED      1 "
      "(JobHeldUser)\n"
      "                 1       gpu     jobA     root  RUNNING       0:03   1:00:00      2 "
      "gpu[001-002]\n"
      "                 9       gpu parsable     root  RUNNING       0:00 UNLIMITED      1 gpu001\n"
      "                10       gpu    plain     root  RUNNING       0:00 UNLIMITED      1 gpu001\n"
      "                 2       gpu     jobB     root  RUNNING       0:03 UNLIMITED      1 gpu003\n"
      "                 3       gpu     jobC     root  RUNNING       0:03 UNLIMITED      1 gpu001\n"
      "               5_1       gpu     jobF     root  RUNNING       0:03 UNLIMITED      1 gpu001\n"
      "               5_2       gpu     jobF     root  RUNNING       0:03 UNLIMITED      1 gpu001\n"
      "               5_3       gpu     jobF     root  RUNNING       0:03 UNLIMITED      1 "
      "gpu001\n");
}

TEST_F(SqueueFormatTest, ManyFieldsMatchSlurm) {
  EXPECT_EQ(Render({"-h", "-o", "%A|%i|%j|%u|%T|%M|%l|%D|%C|%b|%N|%r|%S|%V|%Q"}),
            "8|8|jobD|root|PENDING|0:00|UNLIMITED|70|70|N/A||PartitionNodeLimit|N/"
            "A|2026-12-02T09:43:40|615\n"
            "4|4|jobE|root|PENDING|0:00|UNLIMITED|1|1|N/A||JobHeldUser|N/A|2026-12-02T09:43:37|0\n"
            "1|1|jobA|root|RUNNING|0:03|1:00:00|2|2|gres:gpu:4|gpu[001-002]|None|2026-12-02T09:43:"
            "39|2026-12-02T09:43:37|17\n"
            "9|9|parsable|root|RUNNING|0:00|UNLIMITED|1|1|N/"
            "A|gpu001|None|2026-12-02T09:43:42|2026-12-02T09:43:40|8\n"
            "10|10|plain|root|RUNNING|0:00|UNLIMITED|1|1|N/"
            "A|gpu001|None|2026-12-02T09:43:42|2026-12-02T09:43:40|8\n"
            "2|2|jobB|root|RUNNING|0:03|UNLIMITED|1|1|gres:gpu:8|gpu003|None|2026-12-02T09:43:39|"
            "2026-12-02T09:43:37|8\n"
            "3|3|jobC|root|RUNNING|0:03|UNLIMITED|1|1|N/"
            "A|gpu001|None|2026-12-02T09:43:39|2026-12-02T09:43:37|8\n"
            "6|5_1|jobF|root|RUNNING|0:03|UNLIMITED|1|1|gres:gpu:1|gpu001|None|2026-12-02T09:43:39|"
            "2026-12-02T09:43:37|8\n"
            "7|5_2|jobF|root|RUNNING|0:03|UNLIMITED|1|1|gres:gpu:1|gpu001|None|2026-12-02T09:43:39|"
            "2026-12-02T09:43:37|8\n"
            "5|5_3|jobF|root|RUNNING|0:03|UNLIMITED|1|1|gres:gpu:1|gpu001|None|2026-12-02T09:43:39|"
            "2026-12-02T09:43:37|8\n");
}

TEST_F(SqueueFormatTest, LongFormatMatchesSlurm) {
  // $ squeue -O JobID,Name,State,NumNodes,tres-per-node,NodeList,Reason
  EXPECT_EQ(Render({"-O", "JobID,Name,State,NumNodes,tres-per-node,NodeList,Reason"}),
            "JOBID               NAME                STATE               NODES               "
            "TRES_PER_NODE       NODELIST            REASON              \n"
            "8                   jobD                PENDING             70                  N/A  "
            "                                   PartitionNodeLimit  \n"
            "4                   jobE                PENDING             1                   N/A  "
            "                                   JobHeldUser         \n"
            "1                   jobA                RUNNING             2                   "
            "gres:gpu:4          gpu[001-002]        None                \n"
            "9                   parsable            RUNNING             1                   N/A  "
            "               gpu001              None                \n"
            "10                  plain               RUNNING             1                   N/A  "
            "               gpu001              None                \n"
            "2                   jobB                RUNNING             1                   "
            "gres:gpu:8          gpu003              None                \n"
            "3                   jobC                RUNNING             1                   N/A  "
            "               gpu001              None                \n"
            "6                   jobF                RUNNING             1                   "
            "gres:gpu:1          gpu001              None                \n"
            "7                   jobF                RUNNING             1                   "
            "gres:gpu:1          gpu001              None                \n"
            "5                   jobF                RUNNING             1                   "
            "gres:gpu:1          gpu001              None                \n");
}

TEST_F(SqueueFormatTest, LongFormatOfTheAccountingReference) {
  jobs_.clear_jobs();
  constexpr int kStart = 1796269816 - kRenderNow;  // 2026-12-03T03:50:16Z
  Add(1210, "blocker", canopy::v1::JOB_STATE_RUNNING, 1, kStart - 1, kStart,
      {"gpu001", "gpu002", "gpu003", "gpu004", "gpu005", "gpu006", "gpu007", "gpu008", "gpu009",
       "gpu010", "gpu011", "gpu012"},
      8, 30);
  Add(1220, "bigwait2", canopy::v1::JOB_STATE_PENDING, 1562, kStart, 0, {}, 8, 20, "Resources")
      ->mutable_spec()
      ->set_min_nodes(16);
  Add(1221, "small", canopy::v1::JOB_STATE_PENDING, 1035, kStart, 0, {}, 0, 5, "Priority");
  // $ squeue -O JobID:10,Name:12,State:10,Reason:20,NumNodes:6,TimeLimit:12,StartTime:22
  EXPECT_EQ(Render({"-O",
                    "JobID:10,Name:12,State:10,Reason:20,NumNodes:6,TimeLimit:12,"
                    "StartTime:22"}),
            "JOBID     NAME        STATE     REASON              NODES TIME_LIMIT  START_TIME     "
            "       \n"
            "1220      bigwait2    PENDING   Resources           16    20:00       N/A            "
            "       \n"
            "1221      small       PENDING   Priority            1     5:00        N/A            "
            "       \n"
            "1210      blocker     RUNNING   None                12    30:00       "
            "2026-12-03T03:50:16   \n");
}

TEST_F(SqueueFormatTest, QosIsTheJobsOwn) {
  jobs_.mutable_jobs(0)->set_qos("high");                    // job 1
  jobs_.mutable_jobs(1)->mutable_spec()->set_account("ml");  // job 2: a record without a QOS
  EXPECT_EQ(Render({"-h", "-j", "1,2,3", "-o", "%i %q"}), "1 high\n2 normal\n3 (null)\n");
  EXPECT_EQ(Render({"-j", "1", "-O", "JobID:4,QOS:.6"}), "JOBI   QOS\n1     high\n");
  // squeue refuses -o with -O, in either order.
  EXPECT_EQ(ParseSqueueArgs({"-O", "QOS:5", "-o", "%i"}).status().message(),
            "error: -o (--format) is incompatible with -O (--Format)");
  EXPECT_EQ(ParseSqueueArgs({"-o", "%i", "-O", "QOS:5"}).status().message(),
            "error: -O (--Format) is incompatible with -o (--format)");
}

TEST_F(SqueueFormatTest, FiltersAndWidths) {
  EXPECT_EQ(Render({"-h", "-t", "PD", "-o", "%6i|%.4P|%3j"}), "8     | gpu|job\n4     | gpu|job\n");
  EXPECT_EQ(Render({"-h", "-j", "5", "-o", "%i"}), "5_1\n5_2\n5_3\n");
  EXPECT_EQ(Render({"-h", "--jobs=5_2,9", "-o", "%i"}), "9\n5_2\n");
  EXPECT_EQ(Render({"-h", "-u", "nobody"}), "");
  EXPECT_EQ(Render({"-h", "-p", "gpu", "-t", "pending", "-o", "%i %R"}),
            "8 (PartitionNodeLimit)\n4 (JobHeldUser)\n");
}

TEST_F(SqueueFormatTest, PendingArrayTasksShareARow) {
  for (uint32_t task = 1; task <= 3; ++task) {
    canopy::v1::Job* j = Add(20 + task, "arr", canopy::v1::JOB_STATE_PENDING, 1, -1, 0, {}, 0, 0,
                             "Resources", 21, task);
    j->mutable_spec()->set_array_spec("1-3%2");
  }
  EXPECT_EQ(Render({"-h", "-t", "PD", "-o", "%i %A %R"}),
            "8 8 (PartitionNodeLimit)\n21_[1-3%2] 21 (Resources)\n4 4 (JobHeldUser)\n");
  EXPECT_EQ(Render({"-h", "-r", "-t", "PD", "-o", "%i"}), "8\n21_1\n21_2\n21_3\n4\n");
}

// canopyd folds an array's pending tasks into the first one's record when squeue asks
// (ListJobsRequest.fold_pending_array_tasks): the rows are those of the unfolded list.
TEST_F(SqueueFormatTest, PendingArrayTasksFoldedByCanopydPrintAsTheUnfoldedList) {
  for (uint32_t task : {1, 2, 3, 5, 7}) {
    canopy::v1::Job* j = Add(20 + task, "arr", canopy::v1::JOB_STATE_PENDING, 1, -1, 0, {}, 0, 0,
                             "Resources", 21, task);
    j->mutable_spec()->set_array_spec("1-8%2");
  }
  Add(31, "arr", canopy::v1::JOB_STATE_RUNNING, 1, -1, 0, {"gpu001"}, 0, 0, "None", 21, 8);
  const std::string unfolded = Render({"-o", "%i %A %K %R"});
  // What canopyd sends for the same queue: task 1's record stands for tasks 1-3, 5 and 7.
  canopy::v1::ListJobsResponse folded;
  for (const canopy::v1::Job& job : jobs_.jobs()) {
    if (job.array_job_id() != 21 || job.state() != canopy::v1::JOB_STATE_PENDING ||
        job.array_task_id() == 1) {
      *folded.add_jobs() = job;
    }
  }
  canopy::v1::PendingArrayTasks* tasks = folded.add_pending_arrays();
  tasks->set_array_job_id(21);
  for (uint32_t task : {1, 2, 3, 5, 7}) {
    tasks->add_task_ids(task);
  }
  jobs_ = folded;
  EXPECT_EQ(Render({"-o", "%i %A %K %R"}), unfolded);
  EXPECT_THAT(unfolded, ::testing::HasSubstr("21_[1-3,5,7%2] 21 1-3,5,7%2 (Resources)\n"));
  EXPECT_THAT(unfolded, ::testing::HasSubstr("21_8 31 8 gpu001\n"));
}

TEST_F(SqueueFormatTest, BadArguments) {
  EXPECT_FALSE(ParseSqueueArgs({"-t", "bogus"}).ok());
  EXPECT_FALSE(ParseSqueueArgs({"--bogus"}).ok());
  EXPECT_FALSE(ParseSqueueArgs({"-j", "x"}).ok());
  EXPECT_FALSE(ParseSqueueArgs({"-o"}).ok());
}

// A job that ended and is still in the controller (MinJobAge): as Slurm 22.05's squeue, -j
// alone prints the header and no row, and is not an unknown id; -t shows it.
TEST_F(SqueueFormatTest, AFinishedJobIsListedByIdOnlyWithItsState) {
  Add(11, "done", canopy::v1::JOB_STATE_FAILED, 0, -5, -3, {"gpu001"}, 0, 0, "NonZeroExitCode");
  EXPECT_EQ(Render({"-j", "11"}),
            "             JOBID PARTITION     NAME     USER ST       TIME  NODES "
            "NODELIST(REASON)\n");
  EXPECT_EQ(Render({"-h", "-j", "11", "-o", "%T"}), "");
  absl::StatusOr<SqueueOptions> o = ParseSqueueArgs({"-j", "11"});
  ASSERT_TRUE(o.ok());
  EXPECT_FALSE(NoRequestedJobFound(*o, jobs_));
  EXPECT_EQ(Render({"-h", "-t", "all", "-j", "11", "-o", "%T"}), "FAILED\n");
  EXPECT_EQ(Render({"-h", "-t", "F", "-j", "11", "-o", "%i"}), "11\n");
}

// squeue --start -j of a running job: Slurm prints the header alone (exit 0); it is no unknown id.
TEST_F(SqueueFormatTest, StartOfARunningJobByIdPrintsNoRow) {
  absl::StatusOr<SqueueOptions> o = ParseSqueueArgs({"--start", "-j", "3"});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(ListRequest(*o).states_size(), 0) << "a running job named by -j must come back";
  EXPECT_FALSE(NoRequestedJobFound(*o, jobs_));
  EXPECT_EQ(Render({"-h", "--start", "-j", "3"}), "");
  EXPECT_EQ(Render({"-h", "--start", "-j", "4", "-o", "%i"}), "4\n");  // pending: listed
  o = ParseSqueueArgs({"--start"});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(ListRequest(*o).states_size(), 1);  // without -j only pending jobs are fetched
}

// $ squeue -o '%all' | head -1, as Slurm 22.05.8 printed it: every letter, '|' between.
TEST_F(SqueueFormatTest, AllFieldsHeaderMatchesSlurm) {
  const std::string out = Render({"-o", "%all"});
  EXPECT_EQ(out.substr(0, out.find('\n')),
            "ACCOUNT|TRES_PER_NODE|MIN_CPUS|MIN_TMP_DISK|END_TIME|FEATURES|GROUP|OVER_SUBSCRIBE|"
            "JOBID|NAME|COMMENT|TIME_LIMIT|MIN_MEMORY|REQ_NODES|COMMAND|PRIORITY|QOS|REASON||ST|"
            "USER|RESERVATION|WCKEY|EXC_NODES|NICE|S:C:T|JOBID|EXEC_HOST|CPUS|NODES|DEPENDENCY|"
            "ARRAY_JOB_ID|GROUP|SOCKETS_PER_NODE|CORES_PER_SOCKET|THREADS_PER_CORE|ARRAY_TASK_ID|"
            "TIME_LEFT|TIME|NODELIST|CONTIGUOUS|PARTITION|PRIORITY|NODELIST(REASON)|START_TIME|"
            "STATE|UID|SUBMIT_TIME|LICENSES|CORE_SPEC|SCHEDNODES|WORK_DIR");
  EXPECT_EQ(Render({"-h", "-j", "3", "-o", "%ALL"}),
            Render({"-h", "-j", "3", "-o",
                    "%a|%b|%c|%d|%e|%f|%g|%h|%i|%j|%k|%l|%m|%n|%o|%p|%q|%r|%s|%t|%u|%v|%w|%x|%y|"
                    "%z|%A|%B|%C|%D|%E|%F|%G|%H|%I|%J|%K|%L|%M|%N|%O|%P|%Q|%R|%S|%T|%U|%V|%W|%X|"
                    "%Y|%Z"}));
}

TEST_F(SqueueFormatTest, MissingJobIsReported) {
  absl::StatusOr<SqueueOptions> o = ParseSqueueArgs({"-j", "999999"});
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(NoRequestedJobFound(*o, jobs_));
}

}  // namespace
}  // namespace canopy::ctl::squeue
