// `scontrol write batch_script`: its words and Slurm 22.05's reasons for not writing.
#include "ctl/scontrol/batch_script.h"

#include "gtest/gtest.h"

namespace canopy::ctl::scontrol {
namespace {

TEST(BatchScriptTest, Words) {
  EXPECT_FALSE(ParseBatchScriptArgs({}).has_value());  // Slurm does nothing, says nothing
  std::optional<BatchScriptRequest> r = ParseBatchScriptArgs({"5"});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->job_id, 5u);
  EXPECT_EQ(r->path, "slurm-5.sh");
  r = ParseBatchScriptArgs({"5", "out/job.sh"});
  EXPECT_EQ(r->path, "out/job.sh");
  r = ParseBatchScriptArgs({"5", "-"});
  EXPECT_FALSE(r->path.has_value());  // stdout
  // atoll: leading digits, else 0.
  EXPECT_EQ(ParseBatchScriptArgs({"12abc"})->job_id, 12u);
  EXPECT_EQ(ParseBatchScriptArgs({"abc"})->job_id, 0u);
  EXPECT_EQ(ParseBatchScriptArgs({"abc"})->path, "slurm-0.sh");
}

TEST(BatchScriptTest, WhoMayReadWhichScript) {
  canopy::v1::Job job;
  job.set_user_name("alice");
  job.mutable_spec()->set_script("#!/bin/sh\necho hi\n");
  canopy::v1::WhoAmIResponse alice, bob, root;
  alice.set_user_name("alice");
  bob.set_user_name("bob");
  root.set_user_name("root");
  root.set_operator_(true);
  EXPECT_EQ(*ScriptOf(job, alice), "#!/bin/sh\necho hi\n");
  EXPECT_EQ(*ScriptOf(job, root), "#!/bin/sh\necho hi\n");
  EXPECT_EQ(*ScriptOf(job, std::nullopt), "#!/bin/sh\necho hi\n");
  EXPECT_EQ(ScriptOf(job, bob).status().message(), "Invalid user id");
  job.mutable_spec()->clear_script();  // salloc/srun job
  EXPECT_EQ(ScriptOf(job, alice).status().message(), "Job script not specified");
}

}  // namespace
}  // namespace canopy::ctl::scontrol
