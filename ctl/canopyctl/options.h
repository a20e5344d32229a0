// canopyctl's own command line: `canopyctl [--controller HOST:PORT] COMMAND [ARGS]` and the
// arguments of each command. Canopy's syntax and messages (not getopt's): errors are
// InvalidArgument whose message canopyctl prints as is before exiting 2. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "canopy/v1/controller.pb.h"

namespace canopy::ctl::canopyctl {

// The usage text (`canopyctl help`).
extern const char kUsage[];

// canopyctl's commands, and the options each takes (for completion).
struct CommandWords {
  const char* command;
  std::vector<std::string> options;
};
const std::vector<CommandWords>& Commands();

// `canopyctl completion bash`: a bash completion script for canopyctl (commands, their options,
// node names from `canopyctl nodes`). Source it, or install it as
// /usr/share/bash-completion/completions/canopyctl.
std::string BashCompletion();

struct CommandLine {
  std::string controller;         // --controller HOST:PORT or --controller=HOST:PORT; "" if none
  std::vector<std::string> args;  // everything else: COMMAND ARGS...
};
// Takes --controller out wherever it is; never fails.
CommandLine SplitCommandLine(const std::vector<std::string>& args);

// `nodes [--partition P | -p P] [NODES]`.
absl::StatusOr<canopy::v1::ListNodesRequest> ParseNodesArgs(const std::vector<std::string>& args);

// `topology [NODE]`.
canopy::v1::GetTopologyRequest ParseTopologyArgs(const std::vector<std::string>& args);

// `drain|down|resume NODES [--reason TEXT | --reason=TEXT]`; `verb` is the command.
absl::StatusOr<canopy::v1::UpdateNodeRequest> ParseNodeUpdateArgs(
    const std::string& verb, const std::vector<std::string>& args);

// `jobs [--user U | -u U] [--partition P | -p P]`.
absl::StatusOr<canopy::v1::ListJobsRequest> ParseJobsArgs(const std::vector<std::string>& args);

// `job ID`.
absl::StatusOr<uint32_t> ParseJobArgs(const std::vector<std::string>& args);

// `cancel ID...`.
absl::StatusOr<canopy::v1::CancelJobRequest> ParseCancelArgs(const std::vector<std::string>& args);

}  // namespace canopy::ctl::canopyctl
