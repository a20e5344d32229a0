// sacctmgr's QOS words: the examples of sacctmgr(1) and the errors sacctmgr prints.
#include "ctl/sacctmgr/qos_words.h"

#include <utility>

#include "gtest/gtest.h"

namespace canopy::ctl::sacctmgr {
namespace {

using Settings = std::vector<std::pair<std::string, std::string>>;

Command ParseQosWords(const std::vector<std::string>& args) {
  absl::StatusOr<Invocation> inv = ParseSacctmgrArgs(args);
  EXPECT_TRUE(inv.ok()) << inv.status();
  return inv.ok() ? inv->command : Command();
}

std::string QosWordsError(const std::vector<std::string>& args) {
  absl::StatusOr<Invocation> inv = ParseSacctmgrArgs(args);
  return inv.ok() ? "OK" : std::string(inv.status().message());
}

TEST(SacctmgrQosWordsTest, AddTakesNamesAndSettings) {
  const Command c =
      ParseQosWords({"add", "qos", "High", "Priority=100", "MaxTRESPerUser=gres/gpu=64",
                     "Preempt=normal", "PreemptMode=REQUEUE", "GraceTime=30"});
  EXPECT_EQ(c.verb, Verb::kAdd);
  EXPECT_EQ(c.entity, Entity::kQos);
  EXPECT_EQ(c.names, std::vector<std::string>{"high"});  // lower-cased, as sacctmgr stores it
  EXPECT_EQ(c.settings, (Settings{{"Priority", "100"},
                                  {"MaxTRESPerUser", "gres/gpu=64"},
                                  {"Preempt", "normal"},
                                  {"PreemptMode", "REQUEUE"},
                                  {"GraceTime", "30"}}));
  EXPECT_EQ(ParseQosWords({"add", "qos", "name=a,b", "descr='Fast Lane'"}).names,
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(ParseQosWords({"add", "qos", "a", "descr='Fast Lane'"}).settings,
            (Settings{{"Description", "fast lane"}}));
}

TEST(SacctmgrQosWordsTest, ModifyByNameOrWhere) {
  Command c = ParseQosWords({"modify", "qos", "high", "set", "MaxJobsPerUser=4"});
  EXPECT_EQ(c.names, std::vector<std::string>{"high"});
  EXPECT_TRUE(c.any_condition);
  EXPECT_EQ(c.settings, (Settings{{"MaxJobsPerUser", "4"}}));
  c = ParseQosWords({"modify", "qos", "where", "name=high", "set", "maxjobspu=4", "maxwall=2-0",
                     "maxtres=node=2", "maxtrespu=cpu=8"});
  EXPECT_EQ(c.names, std::vector<std::string>{"high"});
  EXPECT_EQ(c.settings, (Settings{{"MaxJobsPerUser", "4"},
                                  {"MaxWall", "2-0"},
                                  {"MaxTRESPerJob", "node=2"},
                                  {"MaxTRESPerUser", "cpu=8"}}));
  EXPECT_EQ(
      ParseQosWords({"update", "qos", "where", "descriptions=x", "set", "prio=5"}).descriptions,
      std::vector<std::string>{"x"});
}

TEST(SacctmgrQosWordsTest, ClearsAliasesAndPreemptEdits) {
  EXPECT_EQ(ParseQosWords({"modify", "qos", "high", "set", "GrpJobs=-1", "MaxJobsPU=-5",
                           "Priority=-1", "GraceTime=-1", "MaxWall=-1"})
                .settings,
            (Settings{{"GrpJobs", "-1"},
                      {"MaxJobsPerUser", "-1"},
                      {"Priority", "0"},
                      {"GraceTime", "0"},
                      {"MaxWall", "-1"}}));
  // Legacy one-TRES limits become items of the TRES limits.
  EXPECT_EQ(ParseQosWords({"modify", "qos", "high", "set", "GrpCPUs=64", "MaxNodesPerJob=2",
                           "MaxCPUsPU=-1", "GrpMemory=1024"})
                .settings,
            (Settings{{"GrpTRES", "cpu=64"},
                      {"MaxTRESPerJob", "node=2"},
                      {"MaxTRESPerUser", "cpu=-1"},
                      {"GrpTRES", "mem=1024"}}));
  EXPECT_EQ(ParseQosWords({"modify", "qos", "high", "set", "Preempt+=Low,normal"}).settings,
            (Settings{{"Preempt", "+low,+normal"}}));
  EXPECT_EQ(ParseQosWords({"modify", "qos", "high", "set", "Preempt-=low"}).settings,
            (Settings{{"Preempt", "-low"}}));
  EXPECT_EQ(ParseQosWords({"modify", "qos", "high", "set", "Preempt=''"}).settings,
            (Settings{{"Preempt", ""}}));
  EXPECT_EQ(ParseQosWords({"modify", "qos", "high", "set", "PreemptMode=cancel"}).settings,
            (Settings{{"PreemptMode", "CANCEL"}}));
  EXPECT_EQ(ParseQosWords({"modify", "qos", "high", "set", "PreemptMode=cluster"}).settings,
            (Settings{{"PreemptMode", "cluster"}}));
}

TEST(SacctmgrQosWordsTest, ShowConditions) {
  const Command c = ParseQosWords({"show", "qos", "normal", "where", "preemptmode=requeue,cluster",
                                   "format=name,prio", "withdeleted"});
  EXPECT_EQ(c.verb, Verb::kList);
  EXPECT_EQ(c.names, std::vector<std::string>{"normal"});
  EXPECT_EQ(c.preempt_modes, (std::vector<std::string>{"requeue", "cluster"}));
  EXPECT_EQ(c.format, (std::vector<std::string>{"name", "prio"}));
  EXPECT_EQ(ParseQosWords({"list", "q"}).entity, Entity::kQos);
  EXPECT_EQ(ParseQosWords({"delete", "qos", "high"}).names, std::vector<std::string>{"high"});
  EXPECT_EQ(ParseQosWords({"delete", "qo", "high"}).entity, Entity::kQos);
}

TEST(SacctmgrQosWordsTest, ErrorsAreSacctmgrs) {
  EXPECT_EQ(QosWordsError({"add", "qos", "x", "Bogus=1"}),
            " Unknown option: Bogus=1\n Use keyword 'where' to modify condition");
  EXPECT_EQ(QosWordsError({"show", "qos", "bogus=1"}),
            " Unknown condition: bogus=1\n Use keyword 'set' to modify SLURM_PRINT_VALUE");
  EXPECT_EQ(QosWordsError({"add", "qos", "x", "Priority=abc"}),
            "sacctmgr: error: Invalid value for Priority (abc)");
  EXPECT_EQ(QosWordsError({"add", "qos", "x", "MaxJobsPU=many"}),
            "sacctmgr: error: Invalid value for MaxJobsPU (many)");
  EXPECT_EQ(QosWordsError({"add", "qos", "x", "MaxWall=soon"}),
            " Bad MaxWall time format: MaxWall=soon");
  EXPECT_EQ(QosWordsError({"add", "qos", "x", "PreemptMode=later"}),
            " Bad Preempt Mode given: PreemptMode=later");
  EXPECT_EQ(QosWordsError({"show", "qos", "PreemptMode=later"}),
            " Bad Preempt Mode given: PreemptMode=later");
  EXPECT_NE(QosWordsError({"add", "qos", "x", "PreemptMode=suspend"}).find("Canopy does not have"),
            std::string::npos);
  EXPECT_EQ(QosWordsError({"add", "qos", "x", "GrpTRES=gres/tpu=1"})
                .rfind("sacctmgr: error: GrpTRES: ", 0),
            0u);
  EXPECT_EQ(QosWordsError({"modify", "qos", "x", "set", "name=y"}),
            " Can't modify the name of a QOS");
  absl::StatusOr<Invocation> inv = ParseSacctmgrArgs({"add", "qos", "x", "UsageFactor=2"});
  EXPECT_EQ(inv.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(inv.status().message(),
            "sacctmgr: error: QOS option 'UsageFactor' is not served by Canopy (served: "
            "Description, Priority, GraceTime, GrpJobs, GrpTRES, MaxJobsPerUser, MaxTRESPerJob, "
            "MaxTRESPerUser, MaxWall, Preempt, PreemptMode)");
  EXPECT_EQ(ParseSacctmgrArgs({"show", "qos", "ids=1"}).status().code(),
            absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace canopy::ctl::sacctmgr
