// PassLimits: the limits as one scheduling pass sees them. What running jobs hold comes from the
// lifecycle's LimitUsage (read-only); what the pass's own starts take goes into a private copy
// made at the first start, so a later job of the same user or QOS in the same pass sees it and
// the lifecycle's counts change only when the plan is applied. Not thread-safe.
#pragma once

#include <optional>
#include <string>

#include "absl/types/span.h"
#include "scheduler/core/job.h"
#include "scheduler/limits/limit_usage.h"

namespace canopy::limits {

class PassLimits {
 public:
  // `base` may be null: no limits.
  explicit PassLimits(const LimitUsage* base) : base_(base) {}

  // kNone when `job` may start as far as limits go; else the reason, and `detail` says which.
  core::JobReason Check(const core::Job& job, std::string* detail) const {
    if (base_ == nullptr || !base_->rules().enforce) {
      return core::JobReason::kNone;
    }
    return (copy_.has_value() ? *copy_ : *base_).Check(job, detail);
  }
  // The pass starts `job` on `shares`.
  void Take(const core::Job& job, absl::Span<const core::NodeShare> shares) {
    if (base_ == nullptr || !base_->rules().enforce) {
      return;
    }
    if (!copy_.has_value()) {
      copy_.emplace(*base_);
    }
    copy_->Add(job, shares);
  }

 private:
  const LimitUsage* base_;
  std::optional<LimitUsage> copy_;
};

}  // namespace canopy::limits
