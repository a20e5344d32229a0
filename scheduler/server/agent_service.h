// AgentService: the server side of the agents' long-lived streams (proto/canopy/v1/agent.proto).
//
// Served with gRPC's callback (reactor) API: each stream is an AgentStream object driven by
// gRPC's completion threads, so thousands of agents need no thread each. Every message is
// translated and handed to the Controller; nothing here keeps cluster state. A stream counts only
// once its Register is admitted (agent_admission.h). Thread-safe.
#pragma once

#include "canopy/v1/agent.grpc.pb.h"
#include "scheduler/server/agent_admission.h"
#include "scheduler/server/controller.h"

namespace canopy::server {

class AgentServiceImpl final : public canopy::v1::AgentService::CallbackService {
 public:
  explicit AgentServiceImpl(Controller* controller)
      : controller_(controller), admission_(controller->config()) {}

  grpc::ServerBidiReactor<canopy::v1::AgentMessage, canopy::v1::ControllerMessage>* Connect(
      grpc::CallbackServerContext* context) override;

 private:
  Controller* controller_;
  const AgentAdmission admission_;
};

}  // namespace canopy::server
