// Where sbatch finds the batch script it was given by name, in the order Slurm 22.05's sbatch(1)
// documents under SCRIPT PATH RESOLUTION: a name starting with "." is taken in the working
// directory, one starting with "/" as it is, then the working directory, then PATH. The working
// directory is --chdir's when given, else the caller's.
#pragma once

#include <string>

namespace canopy::ctl::sbatch {

// The path to read `name` from; `name` itself when nothing matches, so that the error names
// what the user typed. `path_env` is PATH's value (nullptr when unset). A name holding a "/" is
// not looked up in PATH, as a shell would not.
std::string ResolveScriptPath(const std::string& name, const std::string& work_dir,
                              const char* path_env);

}  // namespace canopy::ctl::sbatch
