// `sshare`: fair share of every association, as Slurm 22.05 prints it (options.h: what is
// served; render.h: the output). The thin main: asks canopyd for the shares and who the caller
// is, prints, sets the exit code.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace canopy::ctl::sshare {

// `args` excludes the program name.
int RunSshare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace canopy::ctl::sshare
