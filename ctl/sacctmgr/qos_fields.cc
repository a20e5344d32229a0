// `sacctmgr show qos` fields (qos_fields.h).
#include "ctl/sacctmgr/qos_fields.h"

#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "ctl/sacctmgr/qos_values.h"
#include "ctl/sacctmgr/words.h"

namespace canopy::ctl::sacctmgr {
namespace {

using output::FieldCell;
using Id = QosFieldId;

struct QosFieldDef {
  const char* name;
  size_t min;
  const char* header;
  int width;
  Id id = Id::kBlank;
};

// sacctmgr/common.c's _get_print_field, every entry in its order, so that a short name picks
// the field sacctmgr picks. Those that are not a QOS's print blank.
constexpr QosFieldDef kQosFields[] = {
    {"Account", 3, "Account", 10},
    {"Acct", 4, "Account", 10},
    {"ActionRaw", 7, "ActionRaw", 10},
    {"Action", 4, "Action", 20},
    {"Actor", 4, "Actor", 10},
    {"AdminLevel", 2, "Admin", 9},
    {"Allowed", 2, "Allowed", 8},
    {"Associations", 2, "Assocs", 10},
    {"TRES", 2, "TRES", 20},
    {"Classification", 3, "Class", 9},
    {"ClusterNodes", 8, "Cluster Nodes", 20},
    {"Clusters", 2, "Cluster", 10},
    {"Coordinators", 3, "Coord Accounts", 20},
    {"Comment", 3, "Comment", 20},
    {"ControlHost", 8, "ControlHost", 15},
    {"ControlPort", 8, "ControlPort", 12},
    {"Count", 3, "Count", 6},
    {"CountAllowed", 6, "# Allowed", 10},
    {"CountUsed", 6, "# Used", 10},
    {"CPUCount", 2, "CPU Cnt", 7},
    {"DefaultAccount", 8, "Def Acct", 10},
    {"DefaultQOS", 8, "Def QOS", 9},
    {"DefaultWCKey", 8, "Def WCKey", 10},
    {"Description", 3, "Descr", 20, Id::kDescription},
    {"Duration", 2, "Duration", 13},
    {"EventRaw", 6, "EventRaw", 8},
    {"Event", 2, "Event", 7},
    {"Features", 3, "Features", 20},
    {"Federation", 3, "Federation", 10},
    {"FedState", 4, "FedState", 12},
    {"FedStateRaw", 9, "FedStateRaw", 11},
    {"Flags", 2, "Flags", 20},
    {"GraceTime", 3, "GraceTime", 10, Id::kGraceTime},
    {"GrpCPUs", 6, "GrpCPUs", 8, Id::kGrpCpus},
    {"GrpCPUMins", 7, "GrpCPUMins", 11},
    {"GrpCPURunMins", 7, "GrpCPURunMins", 13},
    {"GrpTRES", 7, "GrpTRES", 13, Id::kGrpTres},
    {"GrpTRESMins", 7, "GrpTRESMins", 13},
    {"GrpTRESRunMins", 7, "GrpTRESRunMins", 13},
    {"GrpJobs", 4, "GrpJobs", 7, Id::kGrpJobs},
    {"GrpJobsAccrue", 8, "GrpJobsAccrue", 13},
    {"GrpMemory", 4, "GrpMem", 7, Id::kGrpMem},
    {"GrpNodes", 4, "GrpNodes", 8, Id::kGrpNodes},
    {"GrpSubmitJobs", 4, "GrpSubmit", 9},
    {"GrpWall", 4, "GrpWall", 11},
    {"ID", 2, "ID", 6},
    {"Info", 2, "Info", 20},
    {"LFT", 1, "LFT", 6},
    {"servertype", 10, "ServerType", 10},
    {"MaxCPUMinsPerJob", 7, "MaxCPUMins", 11},
    {"MaxCPURunMinsPerUser", 7, "MaxCPURunMinsPU", 15},
    {"MaxCPURunMinsPU", 7, "MaxCPURunMinsPU", 15},
    {"MaxCPUsPerJob", 7, "MaxCPUs", 8, Id::kMaxCpusPerJob},
    {"MaxCPUsPerUser", 11, "MaxCPUsPU", 9, Id::kMaxCpusPerUser},
    {"MaxCPUsPU", 9, "MaxCPUsPU", 9, Id::kMaxCpusPerUser},
    {"MaxTRES", 7, "MaxTRES", 13, Id::kMaxTresPerJob},
    {"MaxTRESPerJob", 11, "MaxTRES", 13, Id::kMaxTresPerJob},
    {"MaxTRESPerNode", 11, "MaxTRESPerNode", 14},
    {"MaxTRESMinsPerJob", 8, "MaxTRESMins", 13},
    {"MaxTRESRunMinsPerAccount", 18, "MaxTRESRunMinsPA", 15},
    {"MaxTRESRunMinsPerAcct", 18, "MaxTRESRunMinsPA", 15},
    {"MaxTRESRunMinsPA", 15, "MaxTRESRunMinsPA", 15},
    {"MaxTRESRunMinsPerUser", 8, "MaxTRESRunMinsPU", 15},
    {"MaxTRESRunMinsPU", 8, "MaxTRESRunMinsPU", 15},
    {"MaxTRESPerAccount", 11, "MaxTRESPA", 13},
    {"MaxTRESPerAcct", 11, "MaxTRESPA", 13},
    {"MaxTRESPA", 9, "MaxTRESPA", 13},
    {"MaxTRESPerUser", 11, "MaxTRESPU", 13, Id::kMaxTresPerUser},
    {"MaxTRESPU", 9, "MaxTRESPU", 13, Id::kMaxTresPerUser},
    {"MaxJobs", 4, "MaxJobs", 7, Id::kMaxJobsPerUser},  // a QOS's MaxJobs is per user
    {"MaxJobsAccrue", 4, "MaxJobsAccrue", 13},
    {"MaxJobsAccruePerAccount", 17, "MaxJobsAccruePA", 15},
    {"MaxJobsAccruePerAcct", 17, "MaxJobsAccruePA", 15},
    {"MaxJobsAccruePA", 15, "MaxJobsAccruePA", 15},
    {"MaxJobsAccruePerUser", 17, "MaxJobsAccruePU", 15},
    {"MaxJobsAccruePU", 15, "MaxJobsAccruePU", 15},
    {"MaxJobsPerAccount", 11, "MaxJobsPA", 9},
    {"MaxJobsPerAcct", 11, "MaxJobsPA", 9},
    {"MaxJobsPA", 9, "MaxJobsPA", 9},
    {"MaxJobsPerUser", 11, "MaxJobsPU", 9, Id::kMaxJobsPerUser},
    {"MaxJobsPU", 9, "MaxJobsPU", 9, Id::kMaxJobsPerUser},
    {"MaxNodesPerJob", 4, "MaxNodes", 8, Id::kMaxNodesPerJob},
    {"MaxNodesPerUser", 12, "MaxNodesPU", 10, Id::kMaxNodesPerUser},
    {"MaxNodesPU", 10, "MaxNodesPU", 10, Id::kMaxNodesPerUser},
    {"MinPrioThreshold", 4, "MinPrioThres", 12},
    {"MaxSubmitJobs", 4, "MaxSubmit", 9},
    {"MaxSubmitJobsPerAccount", 17, "MaxSubmitPA", 11},
    {"MaxSubmitJobsPerAcct", 17, "MaxSubmitPA", 11},
    {"MaxSubmitJobsPA", 15, "MaxSubmitPA", 11},
    {"MaxSubmitPA", 11, "MaxSubmitPA", 11},
    {"MaxSubmitJobsPerUser", 10, "MaxSubmitPU", 11},
    {"MaxSubmitJobsPU", 10, "MaxSubmitPU", 11},
    {"MaxSubmitPU", 6, "MaxSubmitPU", 11},
    {"MaxWallDurationPerJob", 4, "MaxWall", 11, Id::kMaxWall},
    {"MinCPUsPerJob", 7, "MinCPUs", 8},
    {"MinTRESPerJob", 7, "MinTRES", 13},
    {"Name", 2, "Name", 10, Id::kName},
    {"NodeCount", 5, "NodeCount", 9},
    {"NodeInx", 5, "NodeInx", 9},
    {"NodeNames", 5, "NodeName", -15},
    {"Organization", 1, "Org", 20},
    {"ParentID", 7, "ParentID", 8},
    {"ParentName", 7, "Par Name", 10},
    {"Partition", 4, "Partition", 10},
    {"PluginIDSelect", 2, "PluginIDSelect", 14},
    {"PreemptMode", 8, "PreemptMode", 11, Id::kPreemptMode},
    {"Preempt", 7, "Preempt", 10, Id::kPreempt},
    {"PreemptExemptTime", 8, "PreemptExemptTime", 19},
    {"Priority", 3, "Priority", 10, Id::kPriority},
    {"Problem", 1, "Problem", 40},
    {"QOSLevel", 3, "QOS", 20},
    {"QOSRAWLevel", 4, "QOS_RAW", 10},
    {"Reason", 1, "Reason", 30},
    {"RGT", 1, "RGT", 6},
    {"RPC", 1, "RPC", 5},
    {"Server", 3, "Server", 10},
    {"Share", 1, "Share", 9},
    {"FairShare", 2, "Share", 9},
    {"StateRaw", 6, "StateRaw", 8},
    {"State", 1, "State", 6},
    {"TimeStamp", 2, "Time", 19},
    {"TimeEligible", 6, "TimeEligible", 19},
    {"Eligible", 2, "TimeEligible", 19},
    {"TimeEnd", 6, "TimeEnd", 19},
    {"End", 2, "TimeEnd", 19},
    {"TimeStart", 7, "TimeStart", 19},
    {"Start", 3, "TimeStart", 19},
    {"TimeSubmit", 6, "TimeSubmit", 19},
    {"Submit", 2, "TimeSubmit", 19},
    {"Type", 2, "Type", 8},
    {"UnusedWall", 2, "UnusedWall", 10},
    {"UsageFactor", 6, "UsageFactor", 11, Id::kUsageFactor},
    {"UsageThreshold", 6, "UsageThres", 10},
    {"LimitFactor", 6, "LimitFactor", 11},
    {"Allocated", 7, "Allocated", 9},
    {"LastConsumed", 8, "LastConsumed", 12},
    {"User", 1, "User", 10},
    {"WCKeys", 2, "WCKeys", 20},
    {"Where", 2, "Where", 20},
};

// One TRES's count in a canopyd TRES string ("cpu=512,gres/gpu=64"), or blank.
FieldCell TresCount(const std::string& tres, absl::string_view name) {
  for (absl::string_view item : absl::StrSplit(tres, ',', absl::SkipEmpty())) {
    uint64_t n = 0;
    if (absl::ConsumePrefix(&item, name) && absl::ConsumePrefix(&item, "=")) {
      absl::ConsumeSuffix(&item, "M");  // mem, in MiB
      if (absl::SimpleAtoi(item, &n)) {
        return FieldCell::Number(n);
      }
    }
  }
  return FieldCell::Blank();
}

}  // namespace

absl::StatusOr<std::vector<QosField>> ParseQosFields(const std::vector<std::string>& items) {
  std::vector<QosField> fields;
  for (const std::string& item : items) {
    std::string name = item;
    int width = 0;
    if (const size_t pct = item.find('%'); pct != std::string::npos) {
      name = item.substr(0, pct);
      width = std::atoi(item.c_str() + pct + 1);
    }
    const QosFieldDef* def = nullptr;
    for (const QosFieldDef& f : kQosFields) {
      if (KeyIs(name, f.name, f.min)) {
        def = &f;
        break;
      }
    }
    if (def == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("Unknown field '", name, "'"));
    }
    fields.push_back({def->id, {def->header, width != 0 ? width : def->width}});
  }
  return fields;
}

FieldCell QosFieldValue(QosFieldId id, const canopy::v1::Qos& qos) {
  switch (id) {
    case Id::kBlank:
      return FieldCell::Blank();
    case Id::kName:
      return FieldCell::Text(qos.name());
    case Id::kDescription:
      return FieldCell::Text(qos.description());
    case Id::kPriority:
      return FieldCell::Number(qos.priority());
    case Id::kGraceTime:
      return FieldCell::Whole(TimeText(qos.grace_time().seconds()));
    case Id::kPreempt:
      return FieldCell::Text(absl::StrJoin(qos.preempt(), ","));
    case Id::kPreemptMode:
      return FieldCell::Text(PreemptModeText(qos));
    case Id::kUsageFactor:
      return FieldCell::Double(1.0);  // Canopy charges every QOS's usage in full
    case Id::kGrpTres:
      return FieldCell::Text(TresText(qos.grp_tres()));
    case Id::kGrpCpus:
      return TresCount(qos.grp_tres(), "cpu");
    case Id::kGrpMem:
      return TresCount(qos.grp_tres(), "mem");
    case Id::kGrpNodes:
      return TresCount(qos.grp_tres(), "node");
    case Id::kGrpJobs:
      return qos.has_grp_jobs() ? FieldCell::Number(static_cast<uint64_t>(qos.grp_jobs()))
                                : FieldCell::Blank();
    case Id::kMaxTresPerJob:
      return FieldCell::Text(TresText(qos.max_tres_per_job()));
    case Id::kMaxCpusPerJob:
      return TresCount(qos.max_tres_per_job(), "cpu");
    case Id::kMaxNodesPerJob:
      return TresCount(qos.max_tres_per_job(), "node");
    case Id::kMaxTresPerUser:
      return FieldCell::Text(TresText(qos.max_tres_per_user()));
    case Id::kMaxCpusPerUser:
      return TresCount(qos.max_tres_per_user(), "cpu");
    case Id::kMaxNodesPerUser:
      return TresCount(qos.max_tres_per_user(), "node");
    case Id::kMaxJobsPerUser:
      return qos.has_max_jobs_per_user()
                 ? FieldCell::Number(static_cast<uint64_t>(qos.max_jobs_per_user()))
                 : FieldCell::Blank();
    case Id::kMaxWall:
      // print_fields_time: minutes, as mins2time_str writes them.
      return qos.has_max_wall() ? FieldCell::Whole(TimeText(qos.max_wall().seconds()))
                                : FieldCell::Blank();
  }
  return FieldCell::Blank();
}

}  // namespace canopy::ctl::sacctmgr
