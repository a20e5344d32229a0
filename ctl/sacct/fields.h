// sacct's fields: Slurm 22.05's table (src/sacct/sacct.c: name, default width, how the value is
// printed) with Canopy's value of each for a job line and a step line. Fields Canopy keeps no
// data for (memory and CPU statistics, energy, wckeys, reservations, ...) print blank, as Slurm
// prints fields its records lack. Pure; thread-safe.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "canopy/v1/controller.pb.h"
#include "ctl/output/print_fields.h"

namespace canopy::ctl::sacct {

// What a line shows, and what its fields need besides the record.
struct Line {
  const canopy::v1::AccountingRecord* record = nullptr;
  const canopy::v1::AccountingStep* step = nullptr;  // nullptr: the job line
  // The job line of consecutive pending tasks of one array that never ran, shown as one
  // "A_[2-4%2]" line as Slurm shows an array's pending remainder: the task ids ("2-4%2").
  std::string pending_tasks;
};

struct LineContext {
  absl::Time server_time = absl::UnixEpoch();  // Elapsed of what still runs
  absl::TimeZone tz = absl::UTCTimeZone();
  bool noconvert = false;   // --noconvert: memory in MiB ("8192M" rather than "8G")
  bool completion = false;  // -c: State without "by UID", as the completion log has it
  // Names of uids and gids (User of a record without a user name, Group); the numbers if unset.
  std::function<std::string(uint32_t)> user_name;
  std::function<std::string(uint32_t)> group_name;
};

// The value of a field on a line; `width` is the column's (dates are cut to it, as Slurm's
// print_fields_date does).
using FieldValue = output::FieldCell (*)(const Line& line, const LineContext& context, int width);

// One entry of the table.
struct FieldDef {
  absl::string_view name;  // Slurm's spelling, the header
  int width;               // print_fields' len: > 0 right-aligned, < 0 left-aligned
  FieldValue value;
};

// A column of the output: a field and its width (the table's, or -o's "%N").
struct FieldColumn {
  const FieldDef* field = nullptr;
  int width = 0;
};

// Every field, in Slurm's order (the order --helpformat lists and "ALL" selects).
const std::vector<FieldDef>& AllFields();

// Parses a comma-separated field list as sacct does: blanks before a name are skipped, empty
// items ignored, "NAME%N" sets the width (atoi: "%-20" is left-aligned 20), a name is any
// case-insensitive prefix of a field name and picks the first field in table order it begins
// ("jobid" is JobID, "tresusageinmaxn" TRESUsageInMaxNode), and a prefix of "ALL" selects every
// field. As in sacct, a width belongs to the field, not the column: the last "%N" given for a
// field applies to all its columns. InvalidArgument "sacct: error: Invalid field requested:
// \"X\"" for a name that begins no field.
absl::StatusOr<std::vector<FieldColumn>> ParseFieldList(absl::string_view list);

}  // namespace canopy::ctl::sacct
