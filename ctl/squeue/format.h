// squeue's two format languages, as Slurm 22.05 reads them, into columns of fields.h:
//
//   -o "%.18i %.9P %j": text before the first '%' is printed as is; the rest is split at every
//   run of '%' (so "%%" in the middle is one separator and a trailing "%%" prints nothing), and
//   each piece is "[.][WIDTH]LETTER[SUFFIX]": '.' right-aligns, WIDTH pads and cuts the value,
//   SUFFIX is printed after it. There is no '-': squeue reports "Invalid job format
//   specification: -" and prints the piece itself, as for any other unknown letter.
//   -O "JobID:10,Name:.8|": comma-separated names (any case), each with an optional
//   ":[.][WIDTH][SUFFIX]"; the width is 20 when not given. An unknown name is reported and left
//   out.
//
// Both are warnings in Slurm, not failures: squeue prints "squeue: error: ..." and goes on.
// Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "ctl/squeue/fields.h"

namespace canopy::ctl::squeue {

// A column of the output. Exactly one of job_field, step_field is set for a field; neither for
// literal text.
struct Column {
  const JobField* job_field = nullptr;
  const StepField* step_field = nullptr;
  std::string text;  // literal text (the whole column when no field is set)
  int width = 0;     // 0: as wide as the value
  bool right = false;
  std::string suffix;  // printed after the field
};

struct ParsedFormat {
  std::vector<Column> columns;
  std::vector<std::string> errors;  // "Invalid job format specification: X", in order
};

enum class FormatKind { kJobs, kSteps };

ParsedFormat ParseFormat(absl::string_view format, FormatKind kind);      // -o
ParsedFormat ParseLongFormat(absl::string_view format, FormatKind kind);  // -O

// squeue's _print_str: no width = as is; else cut to the width and padded on the left ('.')
// or the right.
std::string FitToColumn(const std::string& value, const Column& column);

}  // namespace canopy::ctl::squeue
