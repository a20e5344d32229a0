// Effects: what handling one event asks the controller to do, in order: persist the dirty jobs
// (one transaction with the rest of the batch), then, only once that commit succeeded, send the
// messages to the agents. Sending after the commit is what makes a launch safe against a crash:
// a job is never running on a node while the database still says it is pending.
#pragma once

#include <string>
#include <vector>

#include "absl/container/btree_set.h"
#include "canopy/v1/agent.pb.h"
#include "scheduler/core/ids.h"

namespace canopy::lifecycle {

struct OutgoingMessage {
  core::NodeId node;
  canopy::v1::ControllerMessage message;
};

struct Effects {
  absl::btree_set<core::JobId> dirty;  // jobs whose record changed: save and republish
  bool next_id_changed = false;
  std::vector<OutgoingMessage> messages;  // to agents, after the commit, in this order
  std::vector<std::string> info;          // log lines
  std::vector<std::string> warnings;
  bool schedule = false;  // capacity was freed or a job arrived: run a pass soon
};

}  // namespace canopy::lifecycle
