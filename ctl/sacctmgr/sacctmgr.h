// `sacctmgr`: accounts, users and associations, as Slurm 22.05's sacctmgr shows and changes
// them (command.h: what is served; show.h, change.h, flat_file.h: the output). The thin main:
// reads the associations from canopyd, prints, asks "Would you like to commit changes?" (unless
// -i is given or stdin is not a terminal: then it commits as -i does), sends the change, reads
// and writes flat files, sets the exit code (1 on any error, as sacctmgr).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace canopy::ctl::sacctmgr {

// `args` excludes the program name.
int RunSacctmgr(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// sacctmgr --help, for what Canopy serves.
std::string SacctmgrUsage();

}  // namespace canopy::ctl::sacctmgr
