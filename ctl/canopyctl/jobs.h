// canopyctl's job commands: `jobs` (a table with leaf switches), `job ID` (details, exit code,
// placement explanation), `cancel ID...` and `whoami`. (`run` is srun.) Rendering is pure
// (RenderJobsTable, RenderJobDetails) for tests.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "canopy/v1/controller.pb.h"
#include "ctl/client/controller_client.h"

namespace canopy::ctl::canopyctl {

std::string RenderJobsTable(const canopy::v1::ListJobsResponse& jobs);
std::string RenderJobDetails(const canopy::v1::Job& job, absl::Time now, absl::TimeZone tz);

int JobsCommand(client::ControllerClient& client, const std::vector<std::string>& args,
                std::ostream& out, std::ostream& err);
int JobCommand(client::ControllerClient& client, const std::vector<std::string>& args,
               std::ostream& out, std::ostream& err);
int CancelCommand(client::ControllerClient& client, const std::vector<std::string>& args,
                  std::ostream& out, std::ostream& err);
int WhoAmICommand(client::ControllerClient& client, std::ostream& out, std::ostream& err);

}  // namespace canopy::ctl::canopyctl
