#include "ctl/client/wire_dependency.h"

namespace canopy::ctl::client {
namespace {

canopy::v1::JobDependency::Type WireType(slurm::DependencyType type) {
  switch (type) {
    case slurm::DependencyType::kAfter:
      return canopy::v1::JobDependency::TYPE_AFTER;
    case slurm::DependencyType::kAfterAny:
      return canopy::v1::JobDependency::TYPE_AFTER_ANY;
    case slurm::DependencyType::kAfterOk:
      return canopy::v1::JobDependency::TYPE_AFTER_OK;
    case slurm::DependencyType::kAfterNotOk:
      return canopy::v1::JobDependency::TYPE_AFTER_NOT_OK;
    case slurm::DependencyType::kAfterCorr:
      return canopy::v1::JobDependency::TYPE_AFTER_CORR;
    case slurm::DependencyType::kSingleton:
      return canopy::v1::JobDependency::TYPE_SINGLETON;
  }
  return canopy::v1::JobDependency::TYPE_UNSPECIFIED;
}

}  // namespace

void AppendWireDependencies(const slurm::DependencyList& list,
                            google::protobuf::RepeatedPtrField<canopy::v1::JobDependency>& out) {
  for (const slurm::DependencyItem& item : list.items) {
    canopy::v1::JobDependency* d = out.Add();
    d->set_type(WireType(item.type));
    d->set_job_id(item.job_id);
    if (item.task_id.has_value()) {
      d->set_array_task_id(*item.task_id);
    }
    if (item.minutes > 0) {
      d->mutable_delay()->set_seconds(int64_t{item.minutes} * 60);
    }
  }
}

}  // namespace canopy::ctl::client
