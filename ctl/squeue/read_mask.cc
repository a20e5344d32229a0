// squeue's read mask (read_mask.h).
#include "ctl/squeue/read_mask.h"

#include <set>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "ctl/squeue/render.h"

namespace canopy::ctl::squeue {
namespace {

// What SelectJobRows, JobSelected, MatchesStates, NoRequestedJobFound and the default and
// --start orders read (rows.cc, job_values.cc: PartitionOf, UserNameOf; job_format.cc:
// JobIdString, JobQosName).
constexpr absl::string_view kRowPaths =
    "job_id,array_job_id,array_task_id,state,spec.array_spec,partition,spec.partition,priority,"
    "submit_time,expected_start,user_id,user_name,spec.account,spec.name,qos,nodes";

// What each -o letter's value (fields.cc) and, for a sortable letter, its -S comparison
// (rows.cc, CompareBy) read, beyond kRowPaths. "" = nothing more. Letters not listed get whole
// records.
struct LetterPaths {
  char letter;
  absl::string_view paths;
};
constexpr LetterPaths kLetterPaths[] = {
    {'a', ""},  // spec.account
    {'b',
     "spec.gpus_per_node,spec.gpu_type,spec.gpus_per_job,spec.gpus_per_task,"
     "spec.gpus_per_node_requested"},
    {'c', "spec.cpus_per_task"},
    {'d', ""},
    {'e', "end_time,start_time,time_limit"},
    {'f', ""},
    {'g', "group_id"},
    {'h', "spec.exclusive_mode,spec.exclusive"},
    {'i', ""},
    {'j', ""},  // spec.name
    {'k', "spec.comment"},
    {'l', "time_limit"},
    {'m', "spec.mem_per_node_mib"},
    {'n', "spec.required_nodes"},
    {'o', ""},
    {'p', ""},  // priority
    {'q', ""},  // qos, spec.account
    {'r', "reason"},
    {'s', ""},
    {'t', ""},  // state
    {'u', ""},  // user_name, user_id
    {'v', "spec.reservation"},
    {'w', "spec.wckey"},
    {'x', "spec.excluded_nodes"},
    {'y', "spec.nice"},
    {'z', ""},
    {'A', ""},
    {'B', ""},  // nodes
    {'C',
     "spec.min_nodes,spec.ntasks,spec.ntasks_per_node,spec.cpus_per_task,spec.overcommit,"
     "spec.cpus_per_gpu,spec.gpus_per_node"},
    {'D', "spec.min_nodes"},
    {'E', "spec.dependencies,spec.dependency_any"},
    {'F', ""},
    {'G', "group_id"},
    {'H', ""},
    {'I', ""},
    {'J', ""},
    {'K', ""},
    {'L', "time_limit,start_time,end_time"},
    {'M', "start_time,end_time"},
    {'N', ""},
    {'O', ""},
    {'P', ""},
    {'Q', ""},
    {'R', "reason"},
    {'S', "start_time"},
    {'T', ""},
    {'U', ""},
    {'V', ""},
    {'W', ""},
    {'X', ""},
    {'Y', "expected_nodes"},
    {'Z', "spec.work_dir"},
};

// False when the letter is not in the table.
bool AddLetter(char letter, std::set<std::string>& paths) {
  for (const LetterPaths& entry : kLetterPaths) {
    if (entry.letter == letter) {
      for (absl::string_view p : absl::StrSplit(entry.paths, ',', absl::SkipEmpty())) {
        paths.emplace(p);
      }
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<std::string> ReadMaskPaths(const SqueueOptions& options) {
  if (options.json || options.steps) {
    return {};
  }
  std::set<std::string> paths;
  for (absl::string_view p : absl::StrSplit(kRowPaths, ',')) {
    paths.emplace(p);
  }
  for (const Column& column : ChooseFormat(options).columns) {
    if (column.job_field != nullptr &&
        (column.job_field->letter == '\0' || !AddLetter(column.job_field->letter, paths))) {
      return {};
    }
  }
  for (char c : options.sort) {
    if (c != ',' && c != '+' && c != '-' && !AddLetter(c, paths)) {
      return {};  // a key squeue refuses: it fails as before, on whole records
    }
  }
  return {paths.begin(), paths.end()};
}

void AddReadMask(const SqueueOptions& options, canopy::v1::ListJobsRequest& request) {
  request.clear_read_mask();
  for (std::string& path : ReadMaskPaths(options)) {
    request.mutable_read_mask()->add_paths(std::move(path));
  }
}

}  // namespace canopy::ctl::squeue
