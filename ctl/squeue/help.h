// The texts squeue prints instead of jobs: --help, --usage (also after a stray operand) and
// -V/--version. Pure; thread-safe.
#pragma once

#include <string>

namespace canopy::ctl::squeue {

std::string SqueueHelp();
std::string SqueueUsage();
std::string SqueueVersion();

}  // namespace canopy::ctl::squeue
