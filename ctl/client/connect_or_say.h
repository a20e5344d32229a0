// A Slurm front end's connection to canopyd. A failure is said the way Slurm's commands say it,
// "<program>: error: <reason>" on every line of the reason, and the command then exits 1.
#pragma once

#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ctl/client/cli_error.h"
#include "ctl/client/controller_client.h"

namespace canopy::ctl::client {

// `controller_flag` as ControllerClient::Connect takes it: empty for the configured controller.
inline absl::StatusOr<ControllerClient> ConnectOrSay(absl::string_view program, std::ostream& err,
                                                     const std::string& controller_flag = "") {
  absl::StatusOr<ControllerClient> client = ControllerClient::Connect(controller_flag);
  if (!client.ok()) {
    PrintPrefixed(absl::StrCat(program, ": error: "), client.status().message(), err);
  }
  return client;
}

}  // namespace canopy::ctl::client
