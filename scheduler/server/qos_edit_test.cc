// sacctmgr add|modify|delete qos as edits of the QOS table.
#include "scheduler/server/qos_edit.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Options = std::vector<std::pair<std::string, std::string>>;

limits::QosTable Table() {
  limits::QosSpec low;
  low.name = "low";
  limits::QosSpec high;
  high.name = "high";
  high.preempt = {"low"};
  absl::StatusOr<limits::QosTable> t = limits::QosTable::Build({low, high});
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

const limits::QosSpec* Named(const QosChange& c, const std::string& name) {
  for (const limits::QosSpec& s : c.specs) {
    if (s.name == name) {
      return &s;
    }
  }
  return nullptr;
}

TEST(QosEditTest, AddSetsTheNameAsDescriptionThenTheOptions) {
  absl::StatusOr<QosChange> c =
      EditQos(Table(), QosEdit::kAdd, {"urgent", "batch", "urgent"},
              Options{{"Priority", "100"}, {"MaxTRESPerUser", "gres/gpu=64"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(c->changed, ElementsAre("urgent", "batch"));
  const limits::QosSpec* urgent = Named(*c, "urgent");
  ASSERT_NE(urgent, nullptr);
  EXPECT_EQ(urgent->description, "urgent");
  EXPECT_EQ(urgent->priority, 100u);
  EXPECT_EQ(urgent->max_tres_per_user.gpus, 64);
  EXPECT_EQ(c->specs.size(), 5u);  // normal, high, low + 2
  EXPECT_EQ(Named(*c, "batch")->description, "batch");
}

TEST(QosEditTest, ModifyChangesOnlyWhatItNames) {
  absl::StatusOr<QosChange> c = EditQos(Table(), QosEdit::kModify, {"high"},
                                        Options{{"MaxJobsPerUser", "4"}, {"Preempt", "+normal"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(c->changed, ElementsAre("high"));
  EXPECT_EQ(Named(*c, "high")->max_jobs_per_user, 4);
  EXPECT_THAT(Named(*c, "high")->preempt, ElementsAre("low", "normal"));
  EXPECT_EQ(Named(*c, "low")->max_jobs_per_user, -1);
}

TEST(QosEditTest, DeleteLeavesThePreemptListsOfTheOthers) {
  absl::StatusOr<QosChange> c = EditQos(Table(), QosEdit::kDelete, {"low"}, {});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(c->changed, ElementsAre("low"));
  EXPECT_EQ(Named(*c, "low"), nullptr);
  EXPECT_TRUE(Named(*c, "high")->preempt.empty());
  EXPECT_TRUE(limits::QosTable::Build(c->specs).ok());
}

TEST(QosEditTest, ErrorsNameWhatIsWrong) {
  EXPECT_EQ(EditQos(Table(), QosEdit::kAdd, {"high"}, {}).status().code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(EditQos(Table(), QosEdit::kModify, {"nosuch"}, Options{{"Priority", "1"}}).status(),
            absl::NotFoundError("QOS 'nosuch' does not exist"));
  EXPECT_EQ(EditQos(Table(), QosEdit::kDelete, {"nosuch"}, {}).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(EditQos(Table(), QosEdit::kDelete, {"normal"}, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(EditQos(Table(), QosEdit::kAdd, {}, {}).status().message(),
            "names: expected at least one QOS name");
  EXPECT_EQ(EditQos(Table(), QosEdit::kModify, {"high"}, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      EditQos(Table(), QosEdit::kDelete, {"low"}, Options{{"Priority", "1"}}).status().message(),
      "options: DELETE takes none");
  const absl::Status bad =
      EditQos(Table(), QosEdit::kModify, {"high"}, Options{{"MaxWall", "soon"}}).status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.message(), HasSubstr("QOS 'high': MaxWall: expected a time limit"));
}

}  // namespace
}  // namespace canopy::server
