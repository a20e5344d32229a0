// `sacctmgr show|list qos`, as Slurm 22.05 prints it (tests/data/slurm-reference/
// accounting-outputs-22.05.txt). Pure: a Command and the ListQos answer in, sacctmgr's table
// (print_fields: columns, -p, -P, -n) out. Rows in canopyd's order ("normal" first, then by
// name); conditions Names=, Descriptions=, PreemptMode= filter them. Thread-safe.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "canopy/v1/accounts.pb.h"
#include "ctl/sacctmgr/command.h"

namespace canopy::ctl::sacctmgr {

// sacctmgr 22.05's default columns (qos_functions.c).
inline constexpr char kQosFormat[] =
    "Name,Prio,GraceT,Preempt,PreemptE,PreemptM,Flags%40,UsageThres,UsageFactor,GrpTRES,"
    "GrpTRESMins,GrpTRESRunMins,GrpJ,GrpS,GrpW,MaxTRES,MaxTRESPerN,MaxTRESMins,MaxW,"
    "MaxTRESPerUser,MaxJobsPerUser,MaxSubmitJobsPerUser,MaxTRESPerAcct,MaxJobsPerAcct,"
    "MaxSubmitJobsPerAcct,MinTRES";

// InvalidArgument "Unknown field 'X'" for a bad Format= name.
absl::StatusOr<std::string> RenderShowQos(const GlobalOptions& options, const Command& command,
                                          const canopy::v1::ListQosResponse& qos);

}  // namespace canopy::ctl::sacctmgr
