#include "ctl/sinfo/sinfo.h"

#include "ctl/client/cli_error.h"
#include "ctl/client/controller_client.h"
#include "ctl/sinfo/options.h"
#include "ctl/sinfo/render.h"

namespace canopy::ctl::sinfo {

int RunSinfo(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  absl::StatusOr<SinfoOptions> options = ParseSinfoArgs(args);
  if (!options.ok()) {
    client::PrintCliError("sinfo", options.status().message(), err);
    return 1;
  }
  absl::StatusOr<client::ControllerClient> client = client::ControllerClient::Connect("");
  if (!client.ok()) {
    err << "sinfo: error: " << client.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<canopy::v1::ListPartitionsResponse> parts = client->ListPartitions();
  if (!parts.ok()) {
    err << "sinfo: error: " << parts.status().message() << "\n";
    return 1;
  }
  canopy::v1::ListNodesRequest request;
  request.set_nodes(options->nodes);
  absl::StatusOr<canopy::v1::ListNodesResponse> nodes = client->ListNodes(request);
  if (!nodes.ok()) {
    err << "sinfo: error: " << nodes.status().message() << "\n";
    return 1;
  }
  out << RenderSinfo(*options, *parts, *nodes, absl::LocalTimeZone());
  return 0;
}

}  // namespace canopy::ctl::sinfo
