// scontrol's connection to canopyd, shared by its commands: a failure is said on `err` the way
// scontrol says it ("scontrol: error: <reason>").
#pragma once

#include <ostream>

#include "absl/status/statusor.h"
#include "ctl/client/controller_client.h"

namespace canopy::ctl::scontrol {

inline absl::StatusOr<client::ControllerClient> ConnectOrSay(std::ostream& err) {
  absl::StatusOr<client::ControllerClient> client = client::ControllerClient::Connect("");
  if (!client.ok()) {
    err << "scontrol: error: " << client.status().message() << "\n";
  }
  return client;
}

}  // namespace canopy::ctl::scontrol
