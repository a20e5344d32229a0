// squeue --json against the document Slurm 22.05's squeue wrote for a running job ("runA"), a
// held one and an array with pending tasks (its members and their order, the meta block, and
// values Canopy has).
#include "ctl/squeue/json.h"

#include <algorithm>
#include <regex>
#include <sstream>

#include "ctl/squeue/render.h"
#include "gtest/gtest.h"

namespace canopy::ctl::squeue {
namespace {

constexpr int64_t kNow = 1796309633;

// The members of a running job's object, in the order Slurm 22.05 wrote them (a pending job
// has the same without job_resources).
const std::vector<std::string> kJobMembers = {"account",
                                              "accrue_time",
                                              "admin_comment",
                                              "array_job_id",
                                              "array_task_id",
                                              "array_max_tasks",
                                              "array_task_string",
                                              "association_id",
                                              "batch_features",
                                              "batch_flag",
                                              "batch_host",
                                              "flags",
                                              "burst_buffer",
                                              "burst_buffer_state",
                                              "cluster",
                                              "cluster_features",
                                              "command",
                                              "comment",
                                              "container",
                                              "contiguous",
                                              "core_spec",
                                              "thread_spec",
                                              "cores_per_socket",
                                              "billable_tres",
                                              "cpus_per_task",
                                              "cpu_frequency_minimum",
                                              "cpu_frequency_maximum",
                                              "cpu_frequency_governor",
                                              "cpus_per_tres",
                                              "deadline",
                                              "delay_boot",
                                              "dependency",
                                              "derived_exit_code",
                                              "eligible_time",
                                              "end_time",
                                              "excluded_nodes",
                                              "exit_code",
                                              "features",
                                              "federation_origin",
                                              "federation_siblings_active",
                                              "federation_siblings_viable",
                                              "gres_detail",
                                              "group_id",
                                              "group_name",
                                              "job_id",
                                              "job_resources",
                                              "job_state",
                                              "last_sched_evaluation",
                                              "licenses",
                                              "max_cpus",
                                              "max_nodes",
                                              "mcs_label",
                                              "memory_per_tres",
                                              "name",
                                              "nodes",
                                              "nice",
                                              "tasks_per_core",
                                              "tasks_per_node",
                                              "tasks_per_socket",
                                              "tasks_per_board",
                                              "cpus",
                                              "node_count",
                                              "tasks",
                                              "het_job_id",
                                              "het_job_id_set",
                                              "het_job_offset",
                                              "partition",
                                              "prefer",
                                              "memory_per_node",
                                              "memory_per_cpu",
                                              "minimum_cpus_per_node",
                                              "minimum_tmp_disk_per_node",
                                              "preempt_time",
                                              "pre_sus_time",
                                              "priority",
                                              "profile",
                                              "qos",
                                              "reboot",
                                              "required_nodes",
                                              "requeue",
                                              "resize_time",
                                              "restart_cnt",
                                              "resv_name",
                                              "shared",
                                              "show_flags",
                                              "sockets_per_board",
                                              "sockets_per_node",
                                              "start_time",
                                              "state_description",
                                              "state_reason",
                                              "standard_error",
                                              "standard_input",
                                              "standard_output",
                                              "submit_time",
                                              "suspend_time",
                                              "system_comment",
                                              "time_limit",
                                              "time_minimum",
                                              "threads_per_core",
                                              "tres_bind",
                                              "tres_freq",
                                              "tres_per_job",
                                              "tres_per_node",
                                              "tres_per_socket",
                                              "tres_per_task",
                                              "tres_req_str",
                                              "tres_alloc_str",
                                              "user_id",
                                              "user_name",
                                              "wckey",
                                              "current_working_directory"};

// The members of each job object (6-space indent) of a document.
std::vector<std::vector<std::string>> JobMembers(const std::string& json) {
  std::vector<std::vector<std::string>> jobs;
  std::istringstream in(json);
  std::string line;
  const std::regex member("^      \"([^\"]+)\":.*");
  while (std::getline(in, line)) {
    if (line == "    {") {
      jobs.emplace_back();
    }
    std::smatch m;
    if (!jobs.empty() && std::regex_match(line, m, member)) {
      jobs.back().push_back(m[1]);
    }
  }
  return jobs;
}

class SqueueJsonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    jobs_.mutable_server_time()->set_seconds(kNow);
    canopy::v1::Job* a = Add(1, "runA");
    a->set_state(canopy::v1::JOB_STATE_RUNNING);
    a->mutable_start_time()->set_seconds(kNow - 8);
    a->add_nodes("gpu001");
    a->add_nodes("gpu002");
    a->add_cpus_allocated(1);
    a->add_cpus_allocated(1);
    Add(2, "held")->set_reason("JobHeldUser");
    for (uint32_t task = 3; task <= 9; ++task) {
      canopy::v1::Job* t = Add(4 + task, "arr");
      t->set_array_job_id(4);
      t->set_array_task_id(task);
      t->mutable_spec()->set_array_spec("1-9%2");
      t->set_reason("JobArrayTaskLimit");
      t->mutable_time_limit()->set_seconds(600);
    }
  }

  canopy::v1::Job* Add(uint32_t id, const std::string& name) {
    canopy::v1::Job* j = jobs_.add_jobs();
    j->set_job_id(id);
    j->mutable_spec()->set_name(name);
    j->mutable_spec()->set_script("#!/bin/sh\n");
    j->mutable_spec()->set_work_dir("/tmp/sq-ref/work");
    j->mutable_spec()->set_stdout_path("/dev/null");
    j->mutable_spec()->set_requeue(true);
    j->set_state(canopy::v1::JOB_STATE_PENDING);
    j->set_user_name("root");
    j->set_partition("gpu");
    j->set_priority(1);
    j->mutable_submit_time()->set_seconds(kNow - 9);
    return j;
  }

  std::string Json(const std::vector<std::string>& args) {
    absl::StatusOr<SqueueOptions> o = ParseSqueueArgs(args);
    EXPECT_TRUE(o.ok()) << o.status();
    RenderEnvironment env;
    env.group_name = [](uint32_t) { return std::string("root"); };
    return RenderSqueueOutput(*o, jobs_, env).out;
  }

  canopy::v1::ListJobsResponse jobs_;
};

TEST_F(SqueueJsonTest, MembersInSlurmsOrder) {
  const std::vector<std::vector<std::string>> jobs = JobMembers(Json({"--json"}));
  ASSERT_EQ(jobs.size(), 3u);  // runA, held, and the array's pending tasks as one job
  EXPECT_EQ(jobs[0], kJobMembers);
  std::vector<std::string> pending = kJobMembers;
  pending.erase(std::find(pending.begin(), pending.end(), "job_resources"));
  EXPECT_EQ(jobs[1], pending);
  EXPECT_EQ(jobs[2], pending);
}

TEST_F(SqueueJsonTest, MetaAndValues) {
  const std::string json = Json({"--json", "-j", "1"});  // squeue 22.05 ignores -j here
  const std::string head =
      "{\n"
      "  \"meta\": {\n"
      "    \"plugin\": {\n"
      "      \"type\": \"openapi\\/v0.0.38\",\n"
      "      \"name\": \"Slurm OpenAPI v0.0.38\"\n"
      "    },\n"
      "    \"Slurm\": {\n"
      "      \"version\": {\n"
      "        \"major\": 22,\n"
      "        \"micro\": 8,\n"
      "        \"minor\": 5\n"
      "      },\n"
      "      \"release\": \"22.05.8\"\n"
      "    }\n"
      "  },\n"
      "  \"errors\": [\n"
      "  ],\n"
      "  \"jobs\": [\n"
      "    {\n"
      "      \"account\": \"\",\n"
      "      \"accrue_time\": 0,\n"
      "      \"admin_comment\": \"\",\n"
      "      \"array_job_id\": 0,\n"
      "      \"array_tas";
  EXPECT_EQ(json.substr(0, head.size()), head);
  for (const char* expected :
       {"      \"array_task_string\": \"3-9%2\",\n", "      \"array_max_tasks\": 2,\n",
        "      \"job_id\": 4,\n", "      \"time_limit\": 10,\n",
        "      \"state_reason\": \"JobArrayTaskLimit\",\n",
        "      \"end_time\": 1827845625,\n",  // start + a year, as Slurm for no limit
        "      \"batch_host\": \"gpu001\",\n", "        \"JOB_WAS_RUNNING\"\n",
        "      \"tres_alloc_str\": \"cpu=2,node=2,billing=2\",\n",
        "      \"standard_output\": \"\\/dev\\/null\",\n",
        "      \"current_working_directory\": \"\\/tmp\\/sq-ref\\/work\"\n"}) {
    EXPECT_NE(json.find(expected), std::string::npos) << expected;
  }
}

}  // namespace
}  // namespace canopy::ctl::squeue
