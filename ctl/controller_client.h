// ControllerClient: canopyctl's connection to canopyd. Resolves the controller (see
// common/rpc/controller_target.h), tags calls with the caller's user name, sets deadlines, and
// turns failures into messages a person can act on ("cannot reach canopyd at X: ... is it
// running?"). One per command invocation; thread-compatible.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "canopy/v1/controller.grpc.pb.h"

namespace canopy::ctl {

class ControllerClient {
 public:
  // `controller_flag` is --controller (may be empty).
  static absl::StatusOr<ControllerClient> Connect(const std::string& controller_flag);

  absl::StatusOr<canopy::v1::ListNodesResponse> ListNodes(
      const canopy::v1::ListNodesRequest& request);
  absl::StatusOr<canopy::v1::ListPartitionsResponse> ListPartitions();
  absl::StatusOr<canopy::v1::GetTopologyResponse> GetTopology(
      const canopy::v1::GetTopologyRequest& request);
  absl::StatusOr<canopy::v1::UpdateNodeResponse> UpdateNode(
      const canopy::v1::UpdateNodeRequest& request);
  absl::StatusOr<canopy::v1::PingResponse> Ping();

  const std::string& target() const { return target_; }

 private:
  ControllerClient(std::string target, std::unique_ptr<canopy::v1::Controller::Stub> stub)
      : target_(std::move(target)), stub_(std::move(stub)) {}
  std::unique_ptr<grpc::ClientContext> NewContext() const;
  absl::Status Explain(const grpc::Status& status) const;

  std::string target_;
  std::unique_ptr<canopy::v1::Controller::Stub> stub_;
};

}  // namespace canopy::ctl
