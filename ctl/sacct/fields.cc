#include "ctl/sacct/fields.h"

#include <cstdlib>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/slurm/hostlist.h"
#include "common/slurm/time_format.h"
#include "ctl/output/job_format.h"
#include "ctl/output/proto_time.h"
#include "ctl/sacct/values.h"

namespace canopy::ctl::sacct {
namespace {

using canopy::v1::Job;
using output::FieldCell;

const Job& J(const Line& l) { return l.record->job(); }
bool IsStep(const Line& l) { return l.step != nullptr; }

// A print_fields_str field that only job lines have.
FieldCell JobText(const Line& l, std::string text) {
  return IsStep(l) ? FieldCell::Blank() : FieldCell::Text(std::move(text));
}
FieldCell JobNumber(const Line& l, uint64_t n) {
  return IsStep(l) ? FieldCell::Blank() : FieldCell::Number(n);
}

// print_fields_date: slurm_make_time_str into a buffer of the column's width, so a narrow
// column cuts the date (without Text's '+'); "Unknown" for a time not set.
FieldCell Date(const google::protobuf::Timestamp& t, const LineContext& c, int width) {
  std::string text = output::FormatTimestampOr(t, c.tz, "Unknown");
  const size_t limit = static_cast<size_t>(std::abs(width));
  if (text.size() > limit) {
    text.resize(limit);
  }
  return FieldCell::Whole(text);
}

int64_t AllocCpus(const Line& l) {
  return IsStep(l) ? l.step->ncpus() : JobAllocatedTres(J(l)).cpu;
}

int64_t Elapsed(const Line& l, const LineContext& c) {
  return IsStep(l) ? StepElapsedSeconds(*l.step, c.server_time)
                   : JobElapsedSeconds(J(l), c.server_time);
}

// Slurm 22.05's Reserved: how long the job waited after it became eligible.
int64_t ReservedSeconds(const Line& l, const LineContext& c) {
  const Job& job = J(l);
  const google::protobuf::Timestamp& eligible =
      output::IsSet(job.eligible_time()) ? job.eligible_time() : job.submit_time();
  if (!output::IsSet(eligible)) {
    return 0;
  }
  absl::Time until = c.server_time;
  if (output::IsSet(job.start_time())) {
    until = output::ToTime(job.start_time());
  } else if (output::IsSet(job.end_time())) {
    until = output::ToTime(job.end_time());
  }
  return std::max<int64_t>(0, absl::ToInt64Seconds(until - output::ToTime(eligible)));
}

std::string UserName(const Line& l, const LineContext& c) {
  if (!J(l).user_name().empty()) {
    return J(l).user_name();
  }
  return c.user_name ? c.user_name(J(l).user_id()) : absl::StrCat(J(l).user_id());
}

// The field values, one function each (the names say which field).
FieldCell Blank(const Line&, const LineContext&, int) { return FieldCell::Blank(); }
FieldCell UnknownText(const Line&, const LineContext&, int) { return FieldCell::Text("Unknown"); }
// Canopy measures no CPU time; Slurm without job accounting gathering prints zero.
FieldCell ZeroCpuTime(const Line&, const LineContext&, int) { return FieldCell::Text("00:00:00"); }
FieldCell ZeroDuration(const Line&, const LineContext&, int) {
  return FieldCell::Whole("00:00:00");
}

FieldCell Account(const Line& l, const LineContext&, int) {
  return FieldCell::Text(J(l).spec().account());
}
FieldCell AllocCpusCell(const Line& l, const LineContext&, int) {
  return FieldCell::Number(static_cast<uint64_t>(AllocCpus(l)));
}
FieldCell AllocNodes(const Line& l, const LineContext&, int) {
  return FieldCell::Text(absl::StrCat(IsStep(l) ? l.step->nodes_size() : J(l).nodes_size()));
}
FieldCell AllocTres(const Line& l, const LineContext& c, int) {
  return FieldCell::Text(
      TresString(IsStep(l) ? StepTres(*l.step) : JobAllocatedTres(J(l)), c.noconvert));
}
FieldCell Comment(const Line& l, const LineContext&, int) {
  return JobText(l, J(l).spec().comment());
}
FieldCell Reservation(const Line& l, const LineContext&, int) {
  return JobText(l, J(l).spec().reservation());
}
FieldCell WCKey(const Line& l, const LineContext&, int) { return JobText(l, J(l).spec().wckey()); }
FieldCell CpuTime(const Line& l, const LineContext& c, int) {
  return FieldCell::Whole(ElapsedString(Elapsed(l, c) * AllocCpus(l)));
}
FieldCell CpuTimeRaw(const Line& l, const LineContext& c, int) {
  return FieldCell::Number(static_cast<uint64_t>(Elapsed(l, c) * AllocCpus(l)));
}
FieldCell DerivedExitCode(const Line& l, const LineContext&, int) {
  const ExitStatus e = DerivedExit(*l.record);
  return JobText(l, output::ExitCodeString(e.code, e.signal));
}
FieldCell ElapsedCell(const Line& l, const LineContext& c, int) {
  return FieldCell::Whole(ElapsedString(Elapsed(l, c)));
}
FieldCell ElapsedRaw(const Line& l, const LineContext& c, int) {
  return FieldCell::Number(static_cast<uint64_t>(Elapsed(l, c)));
}
FieldCell Eligible(const Line& l, const LineContext& c, int width) {
  if (IsStep(l)) {
    return Date(l.step->start_time(), c, width);
  }
  return Date(output::IsSet(J(l).eligible_time()) ? J(l).eligible_time() : J(l).submit_time(), c,
              width);
}
FieldCell End(const Line& l, const LineContext& c, int width) {
  // A step not ended yet shows its job's end, as sacct fills it in.
  if (IsStep(l) && output::IsSet(l.step->end_time())) {
    return Date(l.step->end_time(), c, width);
  }
  return Date(J(l).end_time(), c, width);
}
FieldCell ExitCode(const Line& l, const LineContext&, int) {
  return FieldCell::Text(IsStep(l)
                             ? output::ExitCodeString(l.step->exit_code(), l.step->exit_signal())
                             : output::ExitCodeString(J(l).exit_code(), J(l).exit_signal()));
}
FieldCell Gid(const Line& l, const LineContext&, int) { return JobNumber(l, J(l).group_id()); }
FieldCell Group(const Line& l, const LineContext& c, int) {
  const uint32_t gid = J(l).group_id();
  return JobText(l, c.group_name ? c.group_name(gid) : absl::StrCat(gid));
}
FieldCell JobId(const Line& l, const LineContext&, int) {
  const std::string id = JobIdText(J(l), l.pending_tasks);
  return FieldCell::Text(IsStep(l) ? absl::StrCat(id, ".", l.step->step_id()) : id);
}
FieldCell JobIdRaw(const Line& l, const LineContext&, int) {
  const std::string id = JobIdRawText(J(l), l.pending_tasks);
  return FieldCell::Text(IsStep(l) ? absl::StrCat(id, ".", l.step->step_id()) : id);
}
FieldCell JobName(const Line& l, const LineContext&, int) {
  return FieldCell::Text(IsStep(l) ? l.step->name() : J(l).spec().name());
}
FieldCell NNodes(const Line& l, const LineContext&, int) {
  return FieldCell::Number(
      static_cast<uint64_t>(IsStep(l) ? l.step->nodes_size() : JobNodeCount(J(l))));
}
FieldCell NodeList(const Line& l, const LineContext&, int) {
  if (!IsStep(l)) {
    return FieldCell::Text(JobNodeList(J(l)));
  }
  const std::vector<std::string> nodes(l.step->nodes().begin(), l.step->nodes().end());
  return FieldCell::Text(slurm::CompressHostlist(slurm::SortHostlist(nodes)));
}
FieldCell NTasks(const Line& l, const LineContext&, int) {
  return IsStep(l) ? FieldCell::Number(static_cast<uint64_t>(l.step->ntasks()))
                   : FieldCell::Blank();
}
FieldCell Partition(const Line& l, const LineContext&, int) {
  return JobText(l, J(l).partition().empty() ? J(l).spec().partition() : J(l).partition());
}
FieldCell Priority(const Line& l, const LineContext&, int) { return JobNumber(l, J(l).priority()); }
FieldCell Qos(const Line& l, const LineContext&, int) {
  return JobText(l, output::JobQosName(J(l)));
}
FieldCell Reason(const Line& l, const LineContext&, int) {
  return JobText(l, J(l).reason().empty() ? "None" : J(l).reason());
}
FieldCell ReqCpus(const Line& l, const LineContext&, int) {
  return FieldCell::Number(
      static_cast<uint64_t>(IsStep(l) ? l.step->ncpus() : JobRequestedTres(J(l)).cpu));
}
FieldCell ReqMem(const Line& l, const LineContext& c, int) {
  if (IsStep(l)) {
    return FieldCell::Blank();
  }
  const Tres req = JobRequestedTres(J(l));
  return req.mem_listed ? FieldCell::Text(MemString(req.mem_mib, c.noconvert)) : FieldCell::Blank();
}
FieldCell ReqNodes(const Line& l, const LineContext&, int) {
  return FieldCell::Text(
      absl::StrCat(IsStep(l) ? l.step->nodes_size() : JobRequestedTres(J(l)).nodes));
}
FieldCell ReqTres(const Line& l, const LineContext& c, int) {
  return JobText(l, TresString(JobRequestedTres(J(l)), c.noconvert));
}
FieldCell Reserved(const Line& l, const LineContext& c, int) {
  return IsStep(l) ? FieldCell::Blank() : FieldCell::Whole(ElapsedString(ReservedSeconds(l, c)));
}
FieldCell ResvCpu(const Line& l, const LineContext& c, int) {
  return IsStep(l)
             ? FieldCell::Blank()
             : FieldCell::Whole(ElapsedString(ReservedSeconds(l, c) * JobRequestedTres(J(l)).cpu));
}
FieldCell ResvCpuRaw(const Line& l, const LineContext& c, int) {
  return JobNumber(l, static_cast<uint64_t>(ReservedSeconds(l, c) * JobRequestedTres(J(l)).cpu));
}
FieldCell Restarts(const Line& l, const LineContext&, int) {
  return JobNumber(l, static_cast<uint64_t>(J(l).restart_count()));
}
FieldCell Start(const Line& l, const LineContext& c, int width) {
  return Date(IsStep(l) ? l.step->start_time() : J(l).start_time(), c, width);
}
FieldCell State(const Line& l, const LineContext& c, int) {
  return FieldCell::Text(IsStep(l) ? output::JobStateName(l.step->state())
                                   : JobStateText(*l.record, c.completion));
}
FieldCell Submit(const Line& l, const LineContext& c, int width) {
  return Date(IsStep(l) ? l.step->start_time() : J(l).submit_time(), c, width);
}
FieldCell Timelimit(const Line& l, const LineContext&, int) {
  return JobText(l, TimelimitString(J(l)));
}
FieldCell TimelimitRaw(const Line& l, const LineContext&, int) {
  return JobText(l, TimelimitRawString(J(l)));
}
FieldCell Uid(const Line& l, const LineContext&, int) { return JobNumber(l, J(l).user_id()); }
FieldCell User(const Line& l, const LineContext& c, int) { return JobText(l, UserName(l, c)); }
FieldCell WorkDir(const Line& l, const LineContext&, int) {
  return JobText(l, J(l).spec().work_dir());
}

// Slurm 22.05's fields (src/sacct/sacct.c), plus Restarts.
const std::vector<FieldDef>& Table() {
  static const std::vector<FieldDef>* const kFields = new std::vector<FieldDef>{
      {"Account", 10, &Account},
      {"AdminComment", 15, &Blank},
      {"AllocCPUS", 10, &AllocCpusCell},
      {"AllocNodes", 10, &AllocNodes},
      {"AllocTRES", 10, &AllocTres},
      {"AssocID", 7, &Blank},
      {"AveCPU", 10, &Blank},
      {"AveCPUFreq", 10, &Blank},
      {"AveDiskRead", 14, &Blank},
      {"AveDiskWrite", 14, &Blank},
      {"AvePages", 10, &Blank},
      {"AveRSS", 10, &Blank},
      {"AveVMSize", 10, &Blank},
      {"BlockID", 16, &Blank},
      {"Cluster", 10, &Blank},
      {"Comment", 14, &Comment},
      {"Constraints", 19, &Blank},
      {"Container", 19, &Blank},
      {"ConsumedEnergy", 14, &Blank},
      {"ConsumedEnergyRaw", 17, &Blank},
      {"CPUTime", 10, &CpuTime},
      {"CPUTimeRAW", 10, &CpuTimeRaw},
      {"DBIndex", -21, &Blank},
      {"DerivedExitCode", 15, &DerivedExitCode},
      {"Elapsed", 10, &ElapsedCell},
      {"ElapsedRaw", 10, &ElapsedRaw},
      {"Eligible", 19, &Eligible},
      {"End", 19, &End},
      {"ExitCode", 8, &ExitCode},
      {"Flags", 19, &Blank},
      {"GID", 6, &Gid},
      {"Group", 9, &Group},
      {"JobID", -12, &JobId},
      {"JobIDRaw", -12, &JobIdRaw},
      {"JobName", 10, &JobName},
      {"Layout", 9, &Blank},
      {"MaxDiskRead", 12, &Blank},
      {"MaxDiskReadNode", 15, &Blank},
      {"MaxDiskReadTask", 15, &Blank},
      {"MaxDiskWrite", 12, &Blank},
      {"MaxDiskWriteNode", 16, &Blank},
      {"MaxDiskWriteTask", 16, &Blank},
      {"MaxPages", 8, &Blank},
      {"MaxPagesNode", 12, &Blank},
      {"MaxPagesTask", 14, &Blank},
      {"MaxRSS", 10, &Blank},
      {"MaxRSSNode", 10, &Blank},
      {"MaxRSSTask", 10, &Blank},
      {"MaxVMSize", 10, &Blank},
      {"MaxVMSizeNode", 14, &Blank},
      {"MaxVMSizeTask", 14, &Blank},
      {"McsLabel", 12, &Blank},
      {"MinCPU", 10, &Blank},
      {"MinCPUNode", 10, &Blank},
      {"MinCPUTask", 10, &Blank},
      {"NCPUS", 10, &AllocCpusCell},
      {"NNodes", 8, &NNodes},
      {"NodeList", 15, &NodeList},
      {"NTasks", 8, &NTasks},
      {"Partition", 10, &Partition},
      {"Priority", 10, &Priority},
      {"QOS", 10, &Qos},
      {"QOSRAW", 6, &Blank},
      {"Reason", 22, &Reason},
      {"ReqCPUFreq", 10, &UnknownText},
      {"ReqCPUFreqGov", 13, &UnknownText},
      {"ReqCPUFreqMax", 13, &UnknownText},
      {"ReqCPUFreqMin", 13, &UnknownText},
      {"ReqCPUS", 8, &ReqCpus},
      {"ReqMem", 10, &ReqMem},
      {"ReqNodes", 8, &ReqNodes},
      {"ReqTRES", 10, &ReqTres},
      {"Reservation", 20, &Reservation},
      {"ReservationId", 8, &Blank},
      {"Reserved", 10, &Reserved},
      {"ResvCPU", 10, &ResvCpu},
      {"ResvCPURAW", 13, &ResvCpuRaw},
      {"Restarts", 8, &Restarts},
      {"Start", 19, &Start},
      {"State", 10, &State},
      {"Submit", 19, &Submit},
      {"SubmitLine", 20, &Blank},
      {"Suspended", 10, &ZeroDuration},
      {"SystemComment", 15, &Blank},
      {"SystemCPU", 10, &ZeroCpuTime},
      {"Timelimit", 10, &Timelimit},
      {"TimelimitRaw", 10, &TimelimitRaw},
      {"TotalCPU", 10, &ZeroCpuTime},
      {"TRESUsageInAve", 14, &Blank},
      {"TRESUsageInMax", 14, &Blank},
      {"TRESUsageInMaxNode", 18, &Blank},
      {"TRESUsageInMaxTask", 18, &Blank},
      {"TRESUsageInMin", 14, &Blank},
      {"TRESUsageInMinNode", 18, &Blank},
      {"TRESUsageInMinTask", 18, &Blank},
      {"TRESUsageInTot", 14, &Blank},
      {"TRESUsageOutAve", 15, &Blank},
      {"TRESUsageOutMax", 15, &Blank},
      {"TRESUsageOutMaxNode", 19, &Blank},
      {"TRESUsageOutMaxTask", 19, &Blank},
      {"TRESUsageOutMin", 15, &Blank},
      {"TRESUsageOutMinNode", 19, &Blank},
      {"TRESUsageOutMinTask", 19, &Blank},
      {"TRESUsageOutTot", 15, &Blank},
      {"UID", 6, &Uid},
      {"User", 9, &User},
      {"UserCPU", 10, &ZeroCpuTime},
      {"WCKey", 10, &WCKey},
      {"WCKeyID", 10, &Blank},
      {"WorkDir", 20, &WorkDir},
  };
  return *kFields;
}

// xstrncasecmp(name, given, strlen(given)) == 0: `given` begins `name`.
bool Begins(absl::string_view name, absl::string_view given) {
  return given.size() <= name.size() && absl::EqualsIgnoreCase(name.substr(0, given.size()), given);
}

}  // namespace

const std::vector<FieldDef>& AllFields() { return Table(); }

absl::StatusOr<std::vector<FieldColumn>> ParseFieldList(absl::string_view list) {
  std::vector<FieldColumn> columns;
  std::map<const FieldDef*, int> widths;  // the last "%N" of each field
  for (absl::string_view item : absl::StrSplit(list, ',')) {
    item = absl::StripLeadingAsciiWhitespace(item);
    if (item.empty()) {
      continue;
    }
    std::optional<int> width;
    if (const size_t percent = item.find('%'); percent != absl::string_view::npos) {
      width = std::atoi(std::string(item.substr(percent + 1)).c_str());
      item = item.substr(0, percent);
    }
    std::vector<const FieldDef*> chosen;
    if (Begins("ALL", item)) {
      for (const FieldDef& f : Table()) {
        chosen.push_back(&f);
      }
    } else {
      for (const FieldDef& f : Table()) {
        if (Begins(f.name, item)) {
          chosen.push_back(&f);
          break;
        }
      }
    }
    if (chosen.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("sacct: error: Invalid field requested: \"", item, "\""));
    }
    for (const FieldDef* f : chosen) {
      if (width.has_value()) {
        widths[f] = *width;
      }
      columns.push_back({f, f->width});
    }
  }
  for (FieldColumn& c : columns) {
    if (auto it = widths.find(c.field); it != widths.end()) {
      c.width = it->second;
    }
  }
  return columns;
}

}  // namespace canopy::ctl::sacct
