// accounts.proto's QOS messages <-> scheduler/limits.
#include "scheduler/server/proto_convert_qos.h"

#include "common/rpc/status_convert.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::server {
namespace {

using ::testing::ElementsAre;

TEST(ProtoConvertQosTest, EveryFieldIsTyped) {
  limits::QosSpec spec;
  spec.name = "high";
  spec.description = "urgent work";
  spec.priority = 100;
  spec.max_tres_per_user = {.gpus = 64, .cpus = 512, .nodes = -1, .mem_mib = 2048};
  spec.max_tres_per_job = {.gpus = 8, .cpus = -1, .nodes = 2, .mem_mib = -1};
  spec.grp_tres = {.gpus = 128, .cpus = -1, .nodes = -1, .mem_mib = -1};
  spec.max_jobs_per_user = 4;
  spec.grp_jobs = 0;
  spec.max_wall = absl::Hours(48);
  spec.preempt = {"low", "normal"};
  spec.preempt_mode = slurm::PreemptMode::kRequeue;
  spec.grace_time = absl::Seconds(30);
  const canopy::v1::Qos wire = ToProto(spec);
  EXPECT_EQ(wire.name(), "high");
  EXPECT_EQ(wire.description(), "urgent work");
  EXPECT_EQ(wire.priority(), 100u);
  EXPECT_EQ(wire.max_tres_per_user(), "cpu=512,mem=2048M,gres/gpu=64");
  EXPECT_EQ(wire.max_tres_per_job(), "node=2,gres/gpu=8");
  EXPECT_EQ(wire.grp_tres(), "gres/gpu=128");
  ASSERT_TRUE(wire.has_max_jobs_per_user());
  EXPECT_EQ(wire.max_jobs_per_user(), 4);
  ASSERT_TRUE(wire.has_grp_jobs());  // 0 is a limit
  EXPECT_EQ(wire.grp_jobs(), 0);
  EXPECT_EQ(rpc::FromProtoDuration(wire.max_wall()), absl::Hours(48));
  EXPECT_THAT(wire.preempt(), ElementsAre("low", "normal"));
  EXPECT_EQ(wire.preempt_mode(), "REQUEUE");
  EXPECT_EQ(rpc::FromProtoDuration(wire.grace_time()), absl::Seconds(30));
}

TEST(ProtoConvertQosTest, UnsetMeansNoLimit) {
  limits::QosSpec normal;
  normal.name = "normal";
  const canopy::v1::Qos wire = ToProto(normal);
  EXPECT_EQ(wire.max_tres_per_user(), "");
  EXPECT_FALSE(wire.has_max_jobs_per_user());
  EXPECT_FALSE(wire.has_grp_jobs());
  EXPECT_FALSE(wire.has_max_wall());  // UNLIMITED
  EXPECT_FALSE(wire.has_grace_time());
  EXPECT_EQ(wire.preempt_mode(), "");  // the cluster's
}

TEST(ProtoConvertQosTest, Operations) {
  using Request = canopy::v1::UpdateQosRequest;
  EXPECT_EQ(*FromProto(Request::OPERATION_ADD), QosEdit::kAdd);
  EXPECT_EQ(*FromProto(Request::OPERATION_MODIFY), QosEdit::kModify);
  EXPECT_EQ(*FromProto(Request::OPERATION_DELETE), QosEdit::kDelete);
  const absl::Status bad = FromProto(Request::OPERATION_UNSPECIFIED).status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.message(),
            "operation: expected OPERATION_ADD, OPERATION_MODIFY or OPERATION_DELETE, got 0");
  Request r;
  canopy::v1::Attribute* o = r.add_options();
  o->set_key("Priority");
  o->set_value("5");
  EXPECT_EQ(QosOptionsFromProto(r),
            (std::vector<std::pair<std::string, std::string>>{{"Priority", "5"}}));
}

}  // namespace
}  // namespace canopy::server
