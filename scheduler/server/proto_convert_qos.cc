// accounts.proto's QOS <-> scheduler/limits (proto_convert_qos.h).
#include "scheduler/server/proto_convert_qos.h"

#include "absl/strings/str_cat.h"
#include "common/rpc/status_convert.h"
#include "common/slurm/limit_values.h"

namespace canopy::server {

canopy::v1::Qos ToProto(const limits::QosSpec& spec) {
  canopy::v1::Qos out;
  out.set_name(spec.name);
  out.set_description(spec.description);
  out.set_priority(spec.priority);
  out.set_max_tres_per_user(slurm::FormatTresLimits(spec.max_tres_per_user));
  out.set_max_tres_per_job(slurm::FormatTresLimits(spec.max_tres_per_job));
  out.set_grp_tres(slurm::FormatTresLimits(spec.grp_tres));
  if (spec.max_jobs_per_user >= 0) {
    out.set_max_jobs_per_user(spec.max_jobs_per_user);
  }
  if (spec.grp_jobs >= 0) {
    out.set_grp_jobs(spec.grp_jobs);
  }
  if (spec.max_wall != absl::InfiniteDuration()) {
    *out.mutable_max_wall() = rpc::ToProtoDuration(spec.max_wall);
  }
  for (const std::string& name : spec.preempt) {
    out.add_preempt(name);
  }
  out.set_preempt_mode(std::string(slurm::PreemptModeName(spec.preempt_mode)));
  if (spec.grace_time != absl::ZeroDuration()) {
    *out.mutable_grace_time() = rpc::ToProtoDuration(spec.grace_time);
  }
  return out;
}

absl::StatusOr<QosEdit> FromProto(canopy::v1::UpdateQosRequest::Operation operation) {
  using Request = canopy::v1::UpdateQosRequest;
  switch (operation) {
    case Request::OPERATION_ADD:
      return QosEdit::kAdd;
    case Request::OPERATION_MODIFY:
      return QosEdit::kModify;
    case Request::OPERATION_DELETE:
      return QosEdit::kDelete;
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "operation: expected OPERATION_ADD, OPERATION_MODIFY or OPERATION_DELETE, got ",
          static_cast<int>(operation)));
  }
}

std::vector<std::pair<std::string, std::string>> QosOptionsFromProto(
    const canopy::v1::UpdateQosRequest& request) {
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(request.options_size());
  for (const canopy::v1::Attribute& a : request.options()) {
    out.emplace_back(a.key(), a.value());
  }
  return out;
}

}  // namespace canopy::server
