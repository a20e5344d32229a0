// How sacctmgr prints the values of a QOS (canopy.v1.Qos), in `show qos` and in the settings
// it echoes before a change: TRES limits as slurmdb_make_tres_string_from_simple writes them
// (Slurm's TRES order, memory in the largest exact unit: "mem=1G"), times as secs2time_str
// ("00:00:30", "2-00:00:00"), PreemptMode as `show qos` writes it. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "canopy/v1/accounts.pb.h"

namespace canopy::ctl::sacctmgr {

// "cpu=512,mem=1024M,gres/gpu=64" (canopyd's form) -> "cpu=512,mem=1G,gres/gpu=64"; items are
// kept in their order, memory counts in MiB are written in the largest unit that divides them.
std::string TresText(const std::string& tres);

// secs2time_str: "HH:MM:SS", or "D-HH:MM:SS" from one day.
std::string TimeText(int64_t seconds);

// `show qos`'s PreemptMode: the mode in lower case, "cluster" when the QOS has none.
std::string PreemptModeText(const canopy::v1::Qos& qos);

}  // namespace canopy::ctl::sacctmgr
