// JobReadMask (job_read_mask.h).
#include "scheduler/server/job_read_mask.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/util/field_mask_util.h"

namespace canopy::server {

using google::protobuf::util::FieldMaskUtil;

absl::StatusOr<JobReadMask> JobReadMask::Parse(const google::protobuf::FieldMask& mask) {
  JobReadMask parsed;
  if (mask.paths().empty()) {
    return parsed;
  }
  parsed.job_ = FieldNumbers::None();
  parsed.spec_ = FieldNumbers::None();
  bool whole_spec = false;
  const google::protobuf::Descriptor* job = canopy::v1::Job::descriptor();
  const google::protobuf::Descriptor* spec = canopy::v1::JobSpec::descriptor();
  for (const std::string& path : mask.paths()) {
    if (path.empty() || !FieldMaskUtil::IsValidPath<canopy::v1::Job>(path)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "read_mask: '", path,
          "' is not a field of canopy.v1.Job (expected paths such as job_id, state, spec.name; "
          "see types.proto)"));
    }
    const std::vector<std::string> parts = absl::StrSplit(path, '.');
    const int top = job->FindFieldByName(parts[0])->number();
    parsed.job_.Add(top);
    if (top != canopy::v1::Job::kSpecFieldNumber) {
      parsed.trim_ = parsed.trim_ || parts.size() > 1;
    } else if (parts.size() == 1) {
      whole_spec = true;
    } else {
      parsed.spec_.Add(spec->FindFieldByName(parts[1])->number());
      parsed.trim_ = parsed.trim_ || parts.size() > 2;
    }
  }
  if (whole_spec) {
    parsed.spec_ = FieldNumbers();
  }
  parsed.mask_ = mask;
  return parsed;
}

void JobReadMask::Trim(canopy::v1::Job& job) const {
  if (trim_) {
    FieldMaskUtil::TrimMessage(mask_, &job);
  }
}

}  // namespace canopy::server
