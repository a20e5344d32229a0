// sacctmgr add|modify|delete qos: what is printed before the commit question, and the
// UpdateQos request sent after it.
#include "ctl/sacctmgr/qos_change.h"

#include "ctl/sacctmgr/test_cluster.h"
#include "ctl/sacctmgr/test_qos.h"
#include "gtest/gtest.h"

namespace canopy::ctl::sacctmgr {
namespace {

using QosRequest = canopy::v1::UpdateQosRequest;

QosChangePlan QosPlan(const std::vector<std::string>& args,
                      const canopy::v1::ListQosResponse& qos = ThreeQos(),
                      const canopy::v1::ListAssociationsResponse& assoc = ReferenceCluster()) {
  absl::StatusOr<Invocation> inv = ParseSacctmgrArgs(args);
  EXPECT_TRUE(inv.ok()) << inv.status();
  if (!inv.ok()) {
    return QosChangePlan();
  }
  return PlanQosChange(inv->command, qos, AssociationView(assoc));
}

std::vector<std::string> Names(const QosRequest& r) { return {r.names().begin(), r.names().end()}; }

std::vector<std::pair<std::string, std::string>> Options(const QosRequest& r) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const canopy::v1::Attribute& a : r.options()) {
    out.emplace_back(a.key(), a.value());
  }
  return out;
}

TEST(SacctmgrQosChangeTest, AddEchoesTheSettingsAsSacctmgr) {
  const QosChangePlan plan =
      QosPlan({"add", "qos", "urgent", "Priority=100", "MaxTRESPerUser=mem=2048,gres/gpu=64",
               "MaxJobsPU=4", "MaxWall=2-00:00:00", "Preempt=normal,low", "PreemptMode=requeue",
               "GraceTime=30", "GrpJobs=-1"});
  EXPECT_EQ(plan.out,
            " Adding QOS(s)\n"
            "  urgent\n"
            " Settings\n"
            "  Description    = urgent\n"
            "  GraceTime                = 30\n"
            "  GrpJobs                  = NONE\n"
            "  MaxJobsPerUser = 4\n"
            "  MaxTRESPerUser           = mem=2G,gres/gpu=64\n"
            "  MaxWall                  = 2-00:00:00\n"
            "  Preempt                  = normal,low\n"
            "  PreemptMode              = REQUEUE\n"
            "  Priority                 = 100\n");
  EXPECT_EQ(plan.err, "");
  ASSERT_TRUE(plan.request.has_value());
  EXPECT_EQ(plan.request->operation(), QosRequest::OPERATION_ADD);
  EXPECT_EQ(Names(*plan.request), std::vector<std::string>{"urgent"});
  EXPECT_EQ(Options(*plan.request), (std::vector<std::pair<std::string, std::string>>{
                                        {"Priority", "100"},
                                        {"MaxTRESPerUser", "mem=2048,gres/gpu=64"},
                                        {"MaxJobsPerUser", "4"},
                                        {"MaxWall", "2-00:00:00"},
                                        {"Preempt", "normal,low"},
                                        {"PreemptMode", "REQUEUE"},
                                        {"GraceTime", "30"},
                                        {"GrpJobs", "-1"}}));
}

TEST(SacctmgrQosChangeTest, AddSkipsWhatExists) {
  QosChangePlan plan = QosPlan({"add", "qos", "High,extra", "description=Extra lane"});
  EXPECT_EQ(plan.out,
            " Adding QOS(s)\n"
            "  extra\n"
            " Settings\n"
            "  Description    = extra lane\n");
  ASSERT_TRUE(plan.request.has_value());
  EXPECT_EQ(Names(*plan.request), std::vector<std::string>{"extra"});
  plan = QosPlan({"add", "qos", "high"});
  EXPECT_EQ(plan.out, " Nothing new added.\n");
  EXPECT_EQ(plan.exit_code, 1);
  EXPECT_FALSE(plan.request.has_value());
  plan = QosPlan({"add", "qos", "priority=3"});
  EXPECT_EQ(plan.err, " Need name of qos to add.\n");
  EXPECT_EQ(plan.exit_code, 1);
}

TEST(SacctmgrQosChangeTest, PreemptMustNameAnExistingQos) {
  const QosChangePlan plan = QosPlan({"add", "qos", "x", "Preempt=normal,nosuch"});
  EXPECT_EQ(plan.err,
            "sacctmgr: error: You gave a bad qos 'nosuch'. Valid QOS's are normal,high,low\n");
  EXPECT_EQ(plan.exit_code, 1);
  EXPECT_FALSE(plan.request.has_value());
  EXPECT_TRUE(QosPlan({"modify", "qos", "low", "set", "Preempt-=normal"}).request.has_value());
}

TEST(SacctmgrQosChangeTest, ModifyListsTheQosItChanges) {
  QosChangePlan plan = QosPlan({"modify", "qos", "where", "name=high", "set", "MaxJobsPerUser=8"});
  EXPECT_EQ(plan.out, " Modified qos...\n  high\n");
  ASSERT_TRUE(plan.request.has_value());
  EXPECT_EQ(plan.request->operation(), QosRequest::OPERATION_MODIFY);
  EXPECT_EQ(Names(*plan.request), std::vector<std::string>{"high"});
  EXPECT_EQ(Options(*plan.request),
            (std::vector<std::pair<std::string, std::string>>{{"MaxJobsPerUser", "8"}}));
  plan = QosPlan({"modify", "qos", "where", "preemptmode=cluster,cancel", "set", "priority=1"});
  EXPECT_EQ(plan.out, " Modified qos...\n  normal\n  low\n");
  plan = QosPlan({"modify", "qos", "nosuch", "set", "priority=1"});
  EXPECT_EQ(plan.out, " Nothing modified\n");
  EXPECT_EQ(plan.exit_code, 1);
  plan = QosPlan({"modify", "qos", "high"});
  EXPECT_EQ(plan.err, " You didn't give me anything to set\n");
  plan = QosPlan({"modify", "qos", "set", "priority=1"});
  EXPECT_EQ(plan.err,
            " You didn't set any conditions with 'WHERE'.\n Canopy does not modify every QOS at "
            "once; name them.\n");
}

TEST(SacctmgrQosChangeTest, DeleteChecksDefaultsAndNormal) {
  QosChangePlan plan = QosPlan({"delete", "qos", "high,low"});
  EXPECT_EQ(plan.out, " Deleting QOS(s)...\n  high\n  low\n");
  ASSERT_TRUE(plan.request.has_value());
  EXPECT_EQ(plan.request->operation(), QosRequest::OPERATION_DELETE);
  EXPECT_EQ(Names(*plan.request), (std::vector<std::string>{"high", "low"}));
  EXPECT_EQ(plan.request->options_size(), 0);

  canopy::v1::ListAssociationsResponse assoc = ReferenceCluster();
  canopy::v1::Attribute* def = assoc.mutable_associations(1)->add_attributes();  // nlp
  def->set_key("DefaultQOS");
  def->set_value("high");
  def = assoc.mutable_associations(4)->add_attributes();  // root under nlp
  def->set_key("DefaultQOS");
  def->set_value("high");
  plan = QosPlan({"delete", "qos", "where", "name=high"}, ThreeQos(), assoc);
  EXPECT_EQ(plan.err,
            " Associations listed below have these as their Default QOS.\n"
            "  DefQOS = high       C = anchor     A = nlp                 \n"
            "  DefQOS = high       C = anchor     A = nlp                  U = root     \n"
            " Please either remove the qos' listed above from list and resubmit,\n"
            " or change the default qos to remove the qos.\n"
            " Changes Discarded\n");
  EXPECT_FALSE(plan.request.has_value());

  plan = QosPlan({"delete", "qos", "normal"});
  EXPECT_EQ(plan.err,
            " QOS 'normal' cannot be deleted: it is the QOS of every job that names no other.\n");
  plan = QosPlan({"delete", "qos", "nosuch"});
  EXPECT_EQ(plan.out, " Nothing deleted\n");
  plan = QosPlan({"delete", "qos"});
  EXPECT_EQ(plan.err, " No conditions given to remove, not executing.\n");
}

}  // namespace
}  // namespace canopy::ctl::sacctmgr
