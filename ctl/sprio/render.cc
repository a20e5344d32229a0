#include "ctl/sprio/render.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/slurm/format_spec.h"

namespace canopy::ctl::sprio {
namespace {

// The weights row (-w) is a pseudo job, as in sprio (job == -1).
struct Line {
  const canopy::v1::JobPriority* job = nullptr;  // nullptr with `weights`: the weights row
  bool header = false;
};

// sprio's default formats (sprio/sprio.c).
std::string DefaultFormat(const SprioOptions& o, const canopy::v1::PriorityWeights& w) {
  if (o.long_format) {
    return o.normalized ? "%.15i %9r %.8u %10y %10a %10b %10f %10j %10p %10q %20t"
                        : "%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %.11N "
                          "%.20T";
  }
  std::string f = "%.15i %9r";
  if (!o.users.empty()) {
    f += " %.8u";
  }
  f += o.normalized ? " %10y" : " %.10Y %.10S";
  // Canopy has no association or TRES weights: those columns never appear here.
  const struct {
    uint32_t weight;
    const char* weighted;
    const char* normalized;
  } factors[] = {{w.age(), " %.10A", " %10a"},
                 {w.fairshare(), " %.10F", " %10f"},
                 {w.job_size(), " %.10J", " %10j"},
                 {w.partition(), " %.10P", " %10p"},
                 {w.qos(), " %.10Q", " %10q"}};
  for (const auto& factor : factors) {
    if (factor.weight != 0) {
      f += o.normalized ? factor.normalized : factor.weighted;
    }
  }
  return f;
}

bool Known(char field) {
  return std::string_view("aAbBcfFijJnNopPrSqQuyYtT").find(field) != std::string_view::npos;
}

std::string Header(char field) {
  switch (field) {
    case 'a':
    case 'A':
      return "AGE";
    case 'b':
    case 'B':
      return "ASSOC";
    case 'c':
      return "CLUSTER";
    case 'f':
    case 'F':
      return "FAIRSHARE";
    case 'i':
      return "JOBID";
    case 'j':
    case 'J':
      return "JOBSIZE";
    case 'n':
      return "QOSNAME";
    case 'N':
      return "NICE";
    case 'o':
      return "ACCOUNT";
    case 'p':
    case 'P':
    case 'r':
      return "PARTITION";
    case 'q':
    case 'Q':
      return "QOS";
    case 'S':
      return "SITE";
    case 't':
    case 'T':
      return "TRES";
    case 'u':
      return "USER";
    case 'y':
    case 'Y':
      return "PRIORITY";
    default:
      return "";
  }
}

std::string Int(double v) { return absl::StrFormat("%.0f", v); }

// A weighted factor: upper case prints it, lower case prints it over its weight.
std::string Factor(char field, uint32_t weighted, uint32_t weight) {
  if (field >= 'A' && field <= 'Z') {
    return Int(weighted);
  }
  return absl::StrFormat("%.7f", weight != 0 ? static_cast<double>(weighted) / weight : 0.0);
}

// The weights row: each factor's weight, SITE 1, the rest empty.
std::string WeightValue(char field, const canopy::v1::PriorityWeights& w) {
  switch (field) {
    case 'i':
      return "Weights";
    case 'a':
    case 'A':
      return Int(w.age());
    case 'b':
    case 'B':
      return "0";
    case 'f':
    case 'F':
      return Int(w.fairshare());
    case 'j':
    case 'J':
      return Int(w.job_size());
    case 'p':
    case 'P':
      return Int(w.partition());
    case 'q':
    case 'Q':
      return Int(w.qos());
    case 'S':
      return "1";
    default:
      return "";
  }
}

std::string JobValue(char field, const canopy::v1::JobPriority& job,
                     const canopy::v1::PriorityWeights& w) {
  switch (field) {
    case 'i':
      return absl::StrCat(job.job_id());
    case 'r':
      return job.partition();
    case 'u':
      return job.user();
    case 'o':
      return job.account();
    case 'n':
      return job.qos_name();
    case 'Y':
      return absl::StrCat(job.priority());
    case 'y':
      return absl::StrFormat("%16.14f", job.priority() / static_cast<double>(0xffffffffu));
    case 'S':
      return "0";
    case 'a':
    case 'A':
      return Factor(field, job.age(), w.age());
    case 'b':
    case 'B':
      return Factor(field, 0, 0);
    case 'f':
    case 'F':
      return Factor(field, job.fairshare(), w.fairshare());
    case 'j':
    case 'J':
      return Factor(field, job.job_size(), w.job_size());
    case 'p':
    case 'P':
      return Factor(field, job.partition_factor(), w.partition());
    case 'q':
    case 'Q':
      return Factor(field, job.qos(), w.qos());
    case 'N':
      return absl::StrCat(job.nice());
    default:  // 'c', 't', 'T'
      return "";
  }
}

// sprio's _print_str: right-aligned values are padded then cut to the width; left-aligned ones
// cut then padded.
std::string Fit(const std::string& value, const slurm::FormatItem& item) {
  if (item.width == 0) {
    return value;
  }
  const size_t width = static_cast<size_t>(item.width);
  if (item.right) {
    const std::string padded =
        value.size() < width ? std::string(width - value.size(), ' ') + value : value;
    return padded.substr(0, width);
  }
  std::string v = value.substr(0, width);
  return v + std::string(width - v.size(), ' ');
}

std::string RenderLine(const std::vector<slurm::FormatItem>& items, const Line& line,
                       const canopy::v1::PriorityWeights& w) {
  std::string text;
  for (const slurm::FormatItem& item : items) {
    if (item.field == 0) {
      text += item.literal;
    } else if (line.header) {
      text += Fit(Header(item.field), item);
    } else if (line.job == nullptr) {
      text += Fit(WeightValue(item.field, w), item);
    } else {
      text += Fit(JobValue(item.field, *line.job, w), item);
    }
  }
  return text + "\n";
}

template <typename T>
bool Contains(const std::vector<T>& list, const T& v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

bool Selected(const SprioOptions& o, const canopy::v1::JobPriority& job) {
  return (!o.jobs_given || Contains(o.jobs, job.job_id())) &&
         (o.users.empty() || Contains(o.users, job.user())) &&
         (o.partitions.empty() || Contains(o.partitions, job.partition()));
}

}  // namespace

SprioOutput RenderSprio(const SprioOptions& options,
                        const canopy::v1::ListPrioritiesResponse& priorities) {
  SprioOutput result;
  if (!priorities.multifactor()) {
    result.err =
        "You are not running a supported priority plugin\n(priority/basic).\n"
        "Only 'priority/multifactor' is supported.\n";
    result.exit_code = 1;
    return result;
  }
  const canopy::v1::PriorityWeights& w = priorities.weights();
  // Unknown letters are reported and dropped with the text that follows them (sprio keeps
  // that text as the unknown field's suffix and never prints it).
  std::vector<slurm::FormatItem> items;
  bool drop_literal = false;
  for (const slurm::FormatItem& item : slurm::ParseFormatSpec(
           options.format.empty() ? DefaultFormat(options, w) : options.format)) {
    if (item.field == 0 && drop_literal) {
      drop_literal = false;
      continue;
    }
    drop_literal = false;
    if (item.field != 0 && !Known(item.field)) {
      absl::StrAppend(&result.err, "sprio: error: Invalid job format specification: ",
                      std::string(1, item.field), "\n");
      drop_literal = true;
      continue;
    }
    items.push_back(item);
  }

  std::vector<const canopy::v1::JobPriority*> jobs;
  for (const canopy::v1::JobPriority& job : priorities.jobs()) {
    if (Selected(options, job)) {
      jobs.push_back(&job);
    }
  }
  if (options.jobs_given && jobs.empty()) {
    result.out = "Unable to find jobs matching user/id(s) specified\n";
    return result;
  }
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const auto* a, const auto* b) { return a->job_id() < b->job_id(); });
  if (!options.no_header) {
    result.out += RenderLine(items, Line{nullptr, true}, w);
  }
  if (options.weights) {
    result.out += RenderLine(items, Line{nullptr, false}, w);
    return result;
  }
  for (const canopy::v1::JobPriority* job : jobs) {
    result.out += RenderLine(items, Line{job, false}, w);
  }
  return result;
}

}  // namespace canopy::ctl::sprio
