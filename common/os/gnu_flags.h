// GNU-style spellings of Abseil flags: Abseil accepts only the names as declared
// (`--state_dir`), while users and Slurm's documentation type `--state-dir`. Called before
// absl::ParseCommandLine, this rewrites `--a-b[=v]` to `--a_b[=v]` in place, for every argument
// up to a bare `--` (after it everything is an operand). Values are never touched.
#pragma once

namespace canopy::os {

void AcceptDashedFlags(int argc, char** argv);

}  // namespace canopy::os
