// PlugStack: the plugin list of a plugstack.conf (Slurm's PlugStackConfig), as slurmd, srun and
// sbatch read it. Each line is
//   required|optional PATH [ARGUMENTS...]
//   include GLOB
// with '#' starting a comment. A relative PATH is looked up in each directory of PluginDir
// (colon-separated) in turn; a relative GLOB is taken from the directory of the file that
// includes it. Arguments are whitespace-separated words, passed to every hook as its argv.
// Pure: reads files, loads nothing. Thread-compatible.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace canopy::spank {

struct PlugStackEntry {
  bool required = false;
  std::string path;  // as found: absolute, or as written (relative) if no PluginDir has it
  std::vector<std::string> args;  // the words after the path
  std::string origin;             // "FILE:LINE", for messages
};

struct PlugStack {
  std::vector<PlugStackEntry> entries;
  // Lines left out, as Slurm leaves them out (it logs and goes on), e.g.
  //   "plugstack.conf:3: expected required, optional or include, got 'requird'; line ignored".
  std::vector<std::string> warnings;
};

// Reads `path` and every file it includes, in order. `plugin_dirs` is PluginDir's value.
// A missing `path` is NotFound (callers decide whether a default path may be absent; Slurm
// takes a missing file as an empty one); an include nesting deeper than 16 files or a file it
// names that cannot be read is InvalidArgument or the read error, naming the including line.
absl::StatusOr<PlugStack> ReadPlugStack(const std::string& path, const std::string& plugin_dirs);

// The same over text already read (`origin` names it; includes resolve against its directory).
absl::StatusOr<PlugStack> ParsePlugStack(const std::string& text, const std::string& origin,
                                         const std::string& plugin_dirs);

}  // namespace canopy::spank
