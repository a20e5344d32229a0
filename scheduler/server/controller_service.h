// ControllerService: the client-facing gRPC API (proto/canopy/v1/controller.proto), a thin
// adapter: reads are answered from the Controller's latest snapshot, writes go through the
// Controller's command queue. Thread-safe (called on gRPC's sync server threads).
//
// The job RPCs (SubmitJob, CancelJob, GetJob, ListJobs) are part of API v1 but not served by
// this build: gRPC answers them UNIMPLEMENTED until the job runtime is in (docs/architecture.md,
// "Not built yet").
#pragma once

#include <string>
#include <vector>

#include "canopy/v1/controller.grpc.pb.h"
#include "scheduler/server/controller.h"

namespace canopy::server {

class ControllerServiceImpl final : public canopy::v1::Controller::Service {
 public:
  explicit ControllerServiceImpl(Controller* controller, std::string hostname);

  grpc::Status ListNodes(grpc::ServerContext* context, const canopy::v1::ListNodesRequest* request,
                         canopy::v1::ListNodesResponse* response) override;
  grpc::Status ListPartitions(grpc::ServerContext* context,
                              const canopy::v1::ListPartitionsRequest* request,
                              canopy::v1::ListPartitionsResponse* response) override;
  grpc::Status UpdateNode(grpc::ServerContext* context,
                          const canopy::v1::UpdateNodeRequest* request,
                          canopy::v1::UpdateNodeResponse* response) override;
  grpc::Status GetTopology(grpc::ServerContext* context,
                           const canopy::v1::GetTopologyRequest* request,
                           canopy::v1::GetTopologyResponse* response) override;
  grpc::Status Ping(grpc::ServerContext* context, const canopy::v1::PingRequest* request,
                    canopy::v1::PingResponse* response) override;

 private:
  Controller* const controller_;
  const std::string hostname_;
  std::vector<std::vector<std::string>> node_partitions_;  // by NodeId
};

}  // namespace canopy::server
