// scontrol show config (show_config.h).
#include "ctl/scontrol/show_config.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ctl/output/proto_time.h"

namespace canopy::ctl::scontrol {

std::string RenderConfig(const canopy::v1::GetConfigResponse& config, absl::TimeZone tz) {
  std::string out = absl::StrCat("Configuration data as of ",
                                 output::FormatTimestampOr(config.as_of(), tz, "Unknown"), "\n");
  for (const canopy::v1::ConfigEntry& e : config.entries()) {
    absl::StrAppendFormat(&out, "%-23s = %s\n", e.key(), e.value());
  }
  // The answer itself shows the controller is up: Slurm pings it after printing the config.
  absl::StrAppend(&out, "\nSlurmctld(primary) at ", config.hostname(), " is UP\n");
  return out;
}

}  // namespace canopy::ctl::scontrol
