#include "ctl/squeue/render.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/slurm/format_spec.h"
#include "common/slurm/hostlist.h"
#include "common/slurm/time_format.h"
#include "ctl/output/job_format.h"
#include "ctl/output/proto_time.h"

namespace canopy::ctl::squeue {
namespace {

// 22.05's defaults (its -O spellings "jobarrayid:.18 ,partition:.9 ,..." print the same).
constexpr char kDefaultFormat[] = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R";
constexpr char kLongFormat[] = "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R";
constexpr char kStartFormat[] = "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R";

std::string Header(char field) {
  switch (field) {
    case 'i':
    case 'A':
      return "JOBID";
    case 'j':
      return "NAME";
    case 'u':
      return "USER";
    case 'T':
      return "STATE";
    case 't':
      return "ST";
    case 'M':
      return "TIME";
    case 'l':
      return "TIME_LIMIT";
    case 'L':
      return "TIME_LEFT";
    case 'D':
      return "NODES";
    case 'C':
      return "CPUS";
    case 'b':
      return "TRES_PER_NODE";
    case 'N':
      return "NODELIST";
    case 'R':
      return "NODELIST(REASON)";
    case 'r':
      return "REASON";
    case 'P':
      return "PARTITION";
    case 'S':
      return "START_TIME";
    case 'Y':
      return "SCHEDNODES";
    case 'V':
      return "SUBMIT_TIME";
    case 'e':
      return "END_TIME";
    case 'Q':
      return "PRIORITY";
    case 'a':
      return "ACCOUNT";
    case 'q':
      return "QOS";
    case 'Z':
      return "WORK_DIR";
    default:
      return "";
  }
}

// One output row: a job, or the pending tasks of one array.
struct Row {
  const canopy::v1::Job* job = nullptr;
  std::string id;        // %i
  uint32_t base_id = 0;  // %A
};

std::string Partition(const canopy::v1::Job& job) {
  return job.partition().empty() ? job.spec().partition() : job.partition();
}

std::string NodeList(const canopy::v1::Job& job) {
  return slurm::CompressHostlist(std::vector<std::string>(job.nodes().begin(), job.nodes().end()));
}

std::string Value(char field, const Row& row, absl::Time now, absl::TimeZone tz) {
  const canopy::v1::Job& job = *row.job;
  const bool pending = job.state() == canopy::v1::JOB_STATE_PENDING;
  switch (field) {
    case 'i':
      return row.id;
    case 'A':
      return absl::StrCat(row.base_id);
    case 'j':
      return job.spec().name();
    case 'u':
      return job.user_name().empty() ? absl::StrCat(job.user_id()) : job.user_name();
    case 'T':
      return output::JobStateName(job.state());
    case 't':
      return output::JobStateCompact(job.state());
    case 'M':
      return slurm::FormatSlurmDuration(output::JobRunTime(job, now));
    case 'l':
      return output::JobTimeLimitString(job);
    case 'L': {
      if (!job.has_time_limit()) {
        return "UNLIMITED";
      }
      return slurm::FormatSlurmDuration(absl::Seconds(job.time_limit().seconds()) -
                                        output::JobRunTime(job, now));
    }
    case 'D':
      return absl::StrCat(output::JobNodeCount(job));
    case 'C':
      return absl::StrCat(output::JobCpuCount(job));
    case 'b':
      return output::TresPerNode(job.spec());
    case 'N':
      return NodeList(job);
    case 'R':
      return pending || job.nodes().empty()
                 ? absl::StrCat("(", job.reason().empty() ? "None" : job.reason(), ")")
                 : NodeList(job);
    case 'r':
      return job.reason().empty() ? "None" : job.reason();
    case 'P':
      return Partition(job);
    case 'S':
      // A pending job's expected start, from its backfill reservation.
      return output::FormatTimestampOr(pending ? job.expected_start() : job.start_time(), tz,
                                       "N/A");
    case 'Y':
      return job.expected_nodes().empty()
                 ? "(null)"
                 : slurm::CompressHostlist(std::vector<std::string>(job.expected_nodes().begin(),
                                                                    job.expected_nodes().end()));
    case 'e':
      return output::FormatTimestampOr(job.end_time(), tz, "N/A");
    case 'V':
      return slurm::FormatSlurmTimestamp(output::ToTime(job.submit_time()), tz);
    case 'Q':
      return absl::StrCat(job.priority());
    case 'a':
      return job.spec().account().empty() ? "(null)" : job.spec().account();
    case 'q':
      return output::JobQosName(job);
    case 'Z':
      return job.spec().work_dir();
    default:
      return "";
  }
}

// squeue's _print_str: no width = as is; else cut to the width and padded on the left ('.')
// or the right.
std::string Fit(const std::string& value, const slurm::FormatItem& item) {
  if (item.width == 0) {
    return value;
  }
  std::string v = value.substr(0, static_cast<size_t>(item.width));
  const std::string pad(static_cast<size_t>(item.width) - v.size(), ' ');
  return item.right ? pad + v : v + pad;
}

std::string RenderLine(const std::vector<slurm::FormatItem>& items, const Row* row, absl::Time now,
                       absl::TimeZone tz) {
  std::string line;
  for (const slurm::FormatItem& item : items) {
    if (item.field == 0) {
      line += item.literal;
    } else {
      line += Fit(row == nullptr ? Header(item.field) : Value(item.field, *row, now, tz), item);
    }
  }
  return line + "\n";
}

// "%4" of an array spec "0-15%4", or "".
std::string ArrayThrottle(const std::string& spec) {
  const size_t pct = spec.find('%');
  return pct == std::string::npos ? "" : spec.substr(pct);
}

// "1-3,5" for task ids {1,2,3,5}.
std::string TaskRanges(std::vector<uint32_t> ids) {
  std::sort(ids.begin(), ids.end());
  std::vector<std::string> parts;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) {
      ++j;
    }
    parts.push_back(j == i ? absl::StrCat(ids[i]) : absl::StrCat(ids[i], "-", ids[j]));
    i = j + 1;
  }
  return absl::StrJoin(parts, ",");
}

bool MatchesJobs(const SqueueOptions& o, const canopy::v1::Job& job) {
  if (o.jobs.empty()) {
    return true;
  }
  for (const std::string& want : o.jobs) {
    if (want == absl::StrCat(job.job_id()) || want == output::JobIdString(job) ||
        (job.array_job_id() != 0 && want == absl::StrCat(job.array_job_id()))) {
      return true;
    }
  }
  return false;
}

bool Selected(const SqueueOptions& o, const canopy::v1::Job& job) {
  if (!MatchesJobs(o, job)) {
    return false;
  }
  if (!o.users.empty() &&
      std::find(o.users.begin(), o.users.end(), job.user_name()) == o.users.end() &&
      std::find(o.users.begin(), o.users.end(), absl::StrCat(job.user_id())) == o.users.end()) {
    return false;
  }
  if (!o.partitions.empty() &&
      std::find(o.partitions.begin(), o.partitions.end(), Partition(job)) == o.partitions.end()) {
    return false;
  }
  if (o.start) {
    return job.state() == canopy::v1::JOB_STATE_PENDING;
  }
  if (o.all_states) {
    return true;
  }
  if (!o.states.empty()) {
    return std::find(o.states.begin(), o.states.end(), job.state()) != o.states.end();
  }
  // By default squeue lists jobs still in the queue; with -j it shows finished ones too.
  return !o.jobs.empty() || output::IsJobActive(job.state());
}

// squeue's default sort "P,t,-p"; see the header for the tie-break.
bool RowBefore(const Row& a, const Row& b) {
  const canopy::v1::Job& x = *a.job;
  const canopy::v1::Job& y = *b.job;
  const auto key = [](const canopy::v1::Job& j) {
    const uint32_t base = j.array_job_id() != 0 ? j.array_job_id() : j.job_id();
    return std::make_tuple(Partition(j), output::JobStateCompact(j.state()),
                           -static_cast<int64_t>(j.priority()), -j.submit_time().seconds(), base,
                           j.array_task_id());
  };
  return key(x) < key(y);
}

}  // namespace

bool NoRequestedJobFound(const SqueueOptions& options, const canopy::v1::ListJobsResponse& jobs) {
  if (options.jobs.empty()) {
    return false;
  }
  for (const canopy::v1::Job& j : jobs.jobs()) {
    if (MatchesJobs(options, j)) {
      return false;
    }
  }
  return true;
}

std::string RenderSqueue(const SqueueOptions& options, const canopy::v1::ListJobsResponse& jobs,
                         absl::TimeZone tz) {
  const absl::Time now = output::ToTime(jobs.server_time());
  std::vector<Row> rows;
  // Pending tasks of one array, collapsed into their first task's row.
  std::map<uint32_t, std::vector<uint32_t>> pending_tasks;
  std::map<uint32_t, size_t> pending_row;
  for (const canopy::v1::Job& job : jobs.jobs()) {
    if (!Selected(options, job)) {
      continue;
    }
    if (!options.expand_arrays && job.array_job_id() != 0 &&
        job.state() == canopy::v1::JOB_STATE_PENDING) {
      pending_tasks[job.array_job_id()].push_back(job.array_task_id());
      if (!pending_row.contains(job.array_job_id())) {
        pending_row[job.array_job_id()] = rows.size();
        rows.push_back(Row{&job, "", job.array_job_id()});
      }
      continue;
    }
    rows.push_back(Row{&job, output::JobIdString(job), job.job_id()});
  }
  for (const auto& [array_id, tasks] : pending_tasks) {
    Row& row = rows[pending_row[array_id]];
    row.id = tasks.size() == 1 && ArrayThrottle(row.job->spec().array_spec()).empty()
                 ? absl::StrCat(array_id, "_", tasks[0])
                 : absl::StrCat(array_id, "_[", TaskRanges(tasks),
                                ArrayThrottle(row.job->spec().array_spec()), "]");
  }
  if (options.start) {
    // Earliest expected start first (jobs without one, "N/A", count as time 0), then job id.
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
      return std::make_pair(a.job->expected_start().seconds(), a.base_id) <
             std::make_pair(b.job->expected_start().seconds(), b.base_id);
    });
  } else {
    std::stable_sort(rows.begin(), rows.end(), RowBefore);
  }

  const std::string format = !options.format.empty() ? options.format
                             : options.start         ? kStartFormat
                             : options.long_format   ? kLongFormat
                                                     : kDefaultFormat;
  const std::vector<slurm::FormatItem> items =
      !options.format_long.empty() ? options.format_long : slurm::ParseFormatSpec(format);
  std::string text;
  if (options.long_format) {
    text += absl::FormatTime("%a %b %d %H:%M:%S %Y\n", now, tz);
  }
  if (!options.no_header) {
    text += RenderLine(items, nullptr, now, tz);
  }
  for (const Row& row : rows) {
    text += RenderLine(items, &row, now, tz);
  }
  return text;
}

}  // namespace canopy::ctl::squeue
