// The scripts agents run around jobs, as slurmd runs them (slurm.conf Prolog, Epilog,
// TaskProlog, TaskEpilog, PrologFlags, PrologEpilogTimeout; the YAML's prolog, epilog,
// task_prolog, task_epilog, prolog_flags, prolog_epilog_timeout). One set of checks for both front
// doors: scripts are absolute paths, and PrologFlags takes Alloc and Contain (which Canopy runs as
// Alloc: its job cgroups already hold every process a job starts).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace canopy::config {

struct NodeScripts {
  std::string prolog;       // run as root on each node before the job's first process there
  std::string epilog;       // run as root on each node once the job's processes are gone
  std::string task_prolog;  // run as the user before each task; its stdout can set the env
  std::string task_epilog;  // run as the user after each task
  // PrologFlags=Alloc: the prolog runs on every node when the job is allocated (and the launch
  // waits for it); without it, on the batch host at launch and elsewhere at the first step.
  bool prolog_alloc = false;
  // PrologEpilogTimeout: a prolog or epilog still running after this is killed, and fails as
  // if it had exited non-zero (the node drained). Infinite: wait for it (Slurm's default).
  absl::Duration prolog_epilog_timeout = absl::InfiniteDuration();
};

namespace internal {

// Applies one key if it is one of the above: `key` is lower case without '_' ("taskprolog"),
// `field` its spelling in the file for messages. False if the key is not one of them;
// InvalidArgument "FIELD: expected ..., got 'VALUE'" for a bad value.
absl::StatusOr<bool> ApplyNodeScriptKey(absl::string_view key, absl::string_view field,
                                        absl::string_view value, NodeScripts& scripts);

// The one check of PrologEpilogTimeout, whichever front door read it (slurm.conf: seconds;
// YAML: a duration): InvalidArgument "FIELD: expected ..." unless positive.
absl::Status SetPrologEpilogTimeout(absl::string_view field, absl::Duration timeout,
                                    NodeScripts& scripts);

}  // namespace internal
}  // namespace canopy::config
