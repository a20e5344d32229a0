// What srun does with its tasks' output and exits, kept pure so it is unit-tested: whole lines
// per (rank, stream), labelled "R: " with -l (right-aligned to the widest rank, as srun's
// "%*d: "), and the end-of-step summary ("srun: error: gpu001: task 0: Exited with exit code
// 3") with srun's exit code. Thread-compatible.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace canopy::ctl::srun {

// Digits of the highest rank (ntasks - 1), at least 1: srun's label width.
int LabelWidth(int ntasks);

class TaskOutputBuffer {
 public:
  // `label_width` 0 = no labels.
  explicit TaskOutputBuffer(int label_width) : label_width_(label_width) {}

  // Adds bytes from `rank`'s stream (0 = stdout, 1 = stderr); returns the complete lines, each
  // labelled, ready to print. A partial last line is kept until more data or Flush.
  std::string Append(int rank, int stream, const std::string& data);

  // Everything still buffered for `stream`, each partial line labelled and ended with "\n" as
  // srun prints leftovers, in rank order.
  std::string Flush(int stream);

 private:
  std::string Label(int rank) const;

  int label_width_;
  std::map<std::pair<int, int>, std::string> partial_;  // (stream, rank) -> bytes
};

struct TaskEnd {
  int rank = 0;
  std::string node;
  int exit_code = 0;
  int exit_signal = 0;
};

struct StepSummary {
  std::vector<std::string> messages;  // stderr lines, without the "srun: error: " prefix
  int exit_code = 0;                  // srun's: highest exit code, 128+signal for a signal
};

// Groups failed tasks per node and outcome as srun does ("tasks 0-3: Exited with exit code
// 1", "task 2: Killed", "task 1: Segmentation fault").
StepSummary SummarizeStep(const std::vector<TaskEnd>& ends);

}  // namespace canopy::ctl::srun
