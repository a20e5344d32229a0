// sacct --json against the head of Slurm 22.05's output in tests/data/slurm-reference/
// accounting-outputs-22.05.txt ("sacct --json -j 1212 | head -c 1500").
#include "ctl/sacct/json.h"

#include "ctl/sacct/render.h"
#include "ctl/sacct/test_cluster.h"
#include "gtest/gtest.h"

namespace canopy::ctl::sacct {
namespace {

std::string Json(const std::vector<std::string>& args,
                 const canopy::v1::ListAccountingResponse& response) {
  absl::StatusOr<SacctOptions> o = ParseSacctArgs(args, testing::ReferenceEnvironment());
  EXPECT_TRUE(o.ok()) << o.status();
  RenderEnvironment env;
  env.group_name = [](uint32_t) { return std::string("root"); };
  return o.ok() ? RenderSacct(*o, response, env).out : "";
}

TEST(SacctJsonTest, HeadMatchesSlurmUpToTheClusterName) {
  const std::string reference = testing::ReferenceOutput("accounting-outputs-22.05.txt",
                                                         "sacct --json -j 1212 | head -c 1500");
  const std::string out =
      Json({"--json", "-j", "1212"}, testing::Only(testing::ReferenceCluster(), {1212}));
  // Slurm names its cluster ("anchor"); Canopy has none and writes "".
  const std::string until_cluster = "\"association\": {\n        \"account\": \"nlp\",\n";
  const size_t end = reference.find(until_cluster);
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(out.substr(0, end + until_cluster.size()),
            reference.substr(0, end + until_cluster.size()));
  // From "derived_exit_code" to "exit_code" the bytes are Slurm's again.
  const std::string from = "      \"derived_exit_code\"";
  const std::string to = "      \"exit_code\": {\n        \"status\": \"";
  const size_t ref_from = reference.find(from);
  const size_t out_from = out.find(from);
  ASSERT_NE(ref_from, std::string::npos);
  ASSERT_NE(out_from, std::string::npos);
  const size_t ref_to = reference.find(to, ref_from);
  ASSERT_NE(ref_to, std::string::npos);
  EXPECT_EQ(out.substr(out_from, ref_to + to.size() - ref_from),
            reference.substr(ref_from, ref_to + to.size() - ref_from));
  EXPECT_NE(out.find("\"exit_code\": {\n        \"status\": \"FAILED\",\n"
                     "        \"return_code\": 3\n      },"),
            std::string::npos)
      << out;
}

TEST(SacctJsonTest, JobMembers) {
  canopy::v1::ListAccountingResponse r = testing::Only(testing::ReferenceCluster(), {1211});
  r.mutable_records(0)->mutable_job()->mutable_spec()->set_comment("a \"quoted\"/b");
  const std::string out = Json({"--json", "-j", "1211"}, r);
  for (const char* member :
       {"\"job_id\": 1211,", "\"name\": \"train4\",", "\"nodes\": \"gpu[013-014]\",",
        "\"partition\": \"gpu\",", "\"qos\": \"normal\",", "\"user\": \"root\",",
        "\"group\": \"root\",", "\"working_directory\": \"\\/tmp\\/refjobs\"",
        "\"job\": \"a \\\"quoted\\\"\\/b\",", "\"limit\": 10,", "\"current\": \"COMPLETED\",",
        "\"reason\": \"None\"", "\"id\": \"1211.batch\",", "\"range\": \"gpu[013-014]\"",
        "\"CPUs\": 2,", "\"memory\": 8192"}) {
    EXPECT_NE(out.find(member), std::string::npos) << member << "\n" << out;
  }
}

}  // namespace
}  // namespace canopy::ctl::sacct
