// The words of `sacctmgr add|show|modify|delete qos` after the entity, by sacctmgr's rules
// (qos_functions.c: _set_cond for conditions, _set_rec for settings; keys are case-insensitive
// prefixes with sacctmgr's minimum lengths, "where" starts conditions and "set" settings):
//
//   add qos NAMES [SETTINGS]                 names are bare words or Name=
//   show|list qos [NAMES] [Names=] [Descriptions=] [PreemptMode=] [Format=] [WithDeleted]
//   modify qos [where] CONDITIONS set SETTINGS
//   delete qos [where] CONDITIONS
//
// Settings are read into Command::settings under the option names canopyd's UpdateQos takes
// (Description, Priority, GraceTime, GrpJobs, GrpTRES, MaxJobsPerUser, MaxTRESPerJob,
// MaxTRESPerUser, MaxWall, Preempt, PreemptMode), values checked and normalised: sacctmgr's
// aliases (MaxTRES, MaxTRESPU, MaxJobsPU, MaxWall) and legacy limits (GrpCPUs=, MaxNodesPerJob=,
// ...: one TRES of a TRES limit) become those names; a negative count clears the limit ("-1");
// "Preempt+=a,b" / "Preempt-=a" become "+a,+b" / "-a". Names and descriptions are lower-cased,
// as sacctmgr stores them. Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ctl/sacctmgr/command.h"

namespace canopy::ctl::sacctmgr {

// Reads words[first..] into `command` (verb set, entity kQos). Errors are what sacctmgr prints:
// InvalidArgument " Unknown condition: X" / " Unknown option: X" with their second line,
// "sacctmgr: error: Invalid value for Priority (X)", " Bad MaxWall time format: X",
// " Bad Preempt Mode given: X", "sacctmgr: error: GrpTRES: <what was expected>";
// Unimplemented for an option Slurm has and Canopy does not serve (Flags=, UsageFactor=, ...).
absl::Status ReadQosSpecs(const std::vector<std::string>& words, size_t first, Command& command);

}  // namespace canopy::ctl::sacctmgr
