// What `sacctmgr add|modify|delete qos` will change, worked out before anything is sent, as
// ChangePlan does for accounts and users (change.h): the text sacctmgr prints (" Adding
// QOS(s)" with the settings it echoes, " Modified qos...", " Deleting QOS(s)..."), its errors,
// and the UpdateQos request. Pure; the caller asks "Would you like to commit changes?" and
// sends. Thread-safe.
#pragma once

#include <optional>
#include <string>

#include "canopy/v1/accounts.pb.h"
#include "ctl/sacctmgr/command.h"
#include "ctl/sacctmgr/view.h"

namespace canopy::ctl::sacctmgr {

struct QosChangePlan {
  std::string out;    // stdout, before the commit question
  std::string err;    // stderr
  int exit_code = 0;  // when there is nothing to send: 1 for an error or "Nothing ..."
  std::optional<canopy::v1::UpdateQosRequest> request;  // unset: nothing to send
};

// For Verb::kAdd, kModify and kDelete on QOS. `qos` is canopyd's ListQos answer (which QOS
// exist, what Preempt= may name); `associations` says which ones are a DefaultQOS (delete).
QosChangePlan PlanQosChange(const Command& command, const canopy::v1::ListQosResponse& qos,
                            const AssociationView& associations);

}  // namespace canopy::ctl::sacctmgr
