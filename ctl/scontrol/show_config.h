// `scontrol show config`, in Slurm 22.05's layout (slurm_print_ctl_conf and _print_ping; the
// reference is "scontrol show config" in tests/data/slurm-reference/cli-outputs-22.05.txt):
//
//   Configuration data as of 2026-12-02T09:43:45
//   AccountingStorageBackupHost = (null)
//   MinJobAge               = 300 sec
//   ...
//   <blank line>
//   Slurmctld(primary) at HOST is UP
//
// Keys are left-justified to 23 columns ("%-23s = %s"); longer keys are printed whole. The
// entries come from canopyd already in Slurm's words and order. Pure; thread-safe.
#pragma once

#include <string>

#include "absl/time/time.h"
#include "canopy/v1/controller.pb.h"

namespace canopy::ctl::scontrol {

std::string RenderConfig(const canopy::v1::GetConfigResponse& config, absl::TimeZone tz);

}  // namespace canopy::ctl::scontrol
