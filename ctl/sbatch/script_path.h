// Where sbatch finds the batch script it was given by name, as Slurm 22.05's sbatch did on this
// machine (sbatch(1), SCRIPT PATH RESOLUTION, says much the same): a name starting with "/" or
// "." as it is (so "./job.sh" is the caller's, whatever --chdir says), else in the working
// directory (--chdir's when given, else the caller's), else in each directory of PATH, names
// holding a "/" included ("sub/job.sh" under a PATH directory).
#pragma once

#include <string>

namespace canopy::ctl::sbatch {

// The path to read `name` from; `name` itself when nothing matches, so that the error names
// what the user typed. `path_env` is PATH's value (nullptr when unset). A file that exists is
// taken even if the caller cannot read it (sbatch then says it cannot open it), as Slurm's is.
std::string ResolveScriptPath(const std::string& name, const std::string& work_dir,
                              const char* path_env);

// `path` relative to `dir` (as it is when absolute or when `dir` is empty).
std::string ResolvePath(const std::string& path, const std::string& dir);

}  // namespace canopy::ctl::sbatch
