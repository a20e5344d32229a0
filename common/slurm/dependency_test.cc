// Tests for ParseDependency / FormatDependency: the forms of sbatch --dependency (Slurm 22.05's
// sbatch man page and update_job_dependency) and scontrol show job's Dependency= text
// (_depend_list2str: "afterok:5_*(unfulfilled)", "singleton(unfulfilled)", "(null)").
#include "common/slurm/dependency.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::slurm {
namespace {

using ::testing::HasSubstr;

DependencyList ParseList(absl::string_view text) {
  absl::StatusOr<DependencyList> d = ParseDependency(text);
  EXPECT_TRUE(d.ok()) << text << ": " << d.status();
  return d.value_or(DependencyList());
}

DependencyItem Item(DependencyType type, uint32_t job, std::optional<uint32_t> task = std::nullopt,
                    int64_t minutes = 0) {
  DependencyItem item;
  item.type = type;
  item.job_id = job;
  item.task_id = task;
  item.minutes = minutes;
  return item;
}

TEST(ParseDependencyTest, EveryType) {
  const DependencyList d =
      ParseList("after:1,afterany:2,afterok:3,afternotok:4,aftercorr:5,singleton");
  EXPECT_FALSE(d.any);
  EXPECT_THAT(d.items,
              ::testing::ElementsAre(
                  Item(DependencyType::kAfter, 1), Item(DependencyType::kAfterAny, 2),
                  Item(DependencyType::kAfterOk, 3), Item(DependencyType::kAfterNotOk, 4),
                  Item(DependencyType::kAfterCorr, 5), Item(DependencyType::kSingleton, 0)));
}

TEST(ParseDependencyTest, IdListsTasksAndMinutes) {
  EXPECT_THAT(
      ParseList("afterok:5:7").items,
      ::testing::ElementsAre(Item(DependencyType::kAfterOk, 5), Item(DependencyType::kAfterOk, 7)));
  EXPECT_THAT(ParseList("after:5+10:6").items,
              ::testing::ElementsAre(Item(DependencyType::kAfter, 5, std::nullopt, 10),
                                     Item(DependencyType::kAfter, 6)));
  EXPECT_THAT(ParseList("afterok:5_2").items,
              ::testing::ElementsAre(Item(DependencyType::kAfterOk, 5, 2)));
  EXPECT_THAT(ParseList("afterok:5_0").items,
              ::testing::ElementsAre(Item(DependencyType::kAfterOk, 5, 0)));
  // "_*" names the whole array, as a bare array id does.
  EXPECT_THAT(ParseList("afterany:5_*").items,
              ::testing::ElementsAre(Item(DependencyType::kAfterAny, 5)));
  // "_[LIST]" is one item per task (Slurm's _xlate_array_dep).
  EXPECT_THAT(ParseList("afterok:9_[1-2,4]").items,
              ::testing::ElementsAre(Item(DependencyType::kAfterOk, 9, 1),
                                     Item(DependencyType::kAfterOk, 9, 2),
                                     Item(DependencyType::kAfterOk, 9, 4)));
}

TEST(ParseDependencyTest, AnyCaseQuestionMarkOldFormAndDuplicates) {
  const DependencyList any = ParseList("AfterOK:5?afternotok:5");
  EXPECT_TRUE(any.any);
  EXPECT_EQ(any.items.size(), 2u);
  // A bare id list is Slurm's old form of afterany.
  EXPECT_THAT(ParseList("12,13").items,
              ::testing::ElementsAre(Item(DependencyType::kAfterAny, 12),
                                     Item(DependencyType::kAfterAny, 13)));
  // Slurm keeps one item per (type, job, task).
  EXPECT_THAT(ParseList("afterok:5:5,afterok:5").items,
              ::testing::ElementsAre(Item(DependencyType::kAfterOk, 5)));
  EXPECT_EQ(ParseList("SINGLETON").items.size(), 1u);
}

TEST(ParseDependencyTest, BadValuesNameTheProblem) {
  struct Case {
    const char* text;
    const char* says;
  };
  for (const Case& c : {
           Case{"", "empty"},
           Case{"afterok", "is not a dependency"},
           Case{"afterok:", "expected a job id"},
           Case{"afterok:x", "expected a job id at 'x'"},
           Case{"afterok:0", "must be positive"},
           Case{"afterok:99999999999", "too large"},
           Case{"afterfoo:5", "unknown dependency type 'afterfoo'"},
           Case{"afterok:5,", "nothing after the last ','"},
           Case{"afterok:5,afterany:6?after:7", "not both"},
           Case{"afterok:5x", "unexpected 'x'"},
           Case{"after:5+0", "must be positive"},
           Case{"after:5+", "expected a number of minutes"},
           Case{"afterok:5_", "expected an array task id"},
           Case{"afterok:5_[1-3", "without its ']'"},
           Case{"afterok:5_[3-1]", "bad task list"},
           Case{"afterok:5_[1-3%2]", "'%'"},
           Case{"5+3", "needs a type"},
           Case{"singletonx", "is not a dependency"},
           Case{"expand:5", "does not support expand"},
           Case{"afterburstbuffer:5", "does not support afterburstbuffer"},
       }) {
    absl::StatusOr<DependencyList> d = ParseDependency(c.text);
    ASSERT_FALSE(d.ok()) << c.text;
    EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument) << c.text;
    EXPECT_THAT(d.status().message(), HasSubstr(c.says)) << c.text;
    EXPECT_THAT(d.status().message(), HasSubstr("--dependency=")) << c.text;
    EXPECT_THAT(d.status().message(), HasSubstr("expected TYPE:JOBID")) << c.text;
  }
}

TEST(FormatDependencyTest, SlurmsDependencyField) {
  DependencyList d;
  EXPECT_EQ(FormatDependency(d), "(null)");
  d = ParseList("afterok:5:7,after:9+10,singleton");
  d.items[0].whole_array = true;
  EXPECT_EQ(FormatDependency(d),
            "afterok:5_*(unfulfilled),afterok:7(unfulfilled),after:9+10(unfulfilled),"
            "singleton(unfulfilled)");
  // Fulfilled items are no longer shown; failed ones are.
  d.items[0].state = DependencyState::kFulfilled;
  d.items[1].state = DependencyState::kFailed;
  EXPECT_EQ(FormatDependency(d),
            "afterok:7(failed),after:9+10(unfulfilled),singleton(unfulfilled)");
  d = ParseList("afterok:3_1?afternotok:3_1");
  EXPECT_EQ(FormatDependency(d), "afterok:3_1(unfulfilled)?afternotok:3_1(unfulfilled)");
  for (DependencyItem& item : d.items) {
    item.state = DependencyState::kFulfilled;
  }
  EXPECT_EQ(FormatDependency(d), "(null)");
}

TEST(FormatDependencyTest, RoundTripsThroughParse) {
  for (const char* text : {"afterok:5(unfulfilled),afterany:6(unfulfilled)",
                           "after:1+5(unfulfilled)?aftercorr:2_3(unfulfilled)"}) {
    std::string plain = text;
    for (size_t at; (at = plain.find("(unfulfilled)")) != std::string::npos;) {
      plain.erase(at, 13);
    }
    EXPECT_EQ(FormatDependency(ParseList(plain)), text);
  }
}

}  // namespace
}  // namespace canopy::slurm
