// Multifactor priority (priority.h).
#include "scheduler/fairshare/priority.h"

#include <algorithm>
#include <cmath>

namespace canopy::fairshare {
namespace {

double Clamp01(double x) { return std::clamp(x, 0.0, 1.0); }

uint32_t Weighted(double factor, uint32_t weight) {
  return static_cast<uint32_t>(std::floor(Clamp01(factor) * static_cast<double>(weight)));
}

}  // namespace

PriorityFactors ComputeFactors(const core::Job& job, const PriorityContext& context,
                               const PriorityWeights& weights) {
  PriorityFactors f;
  if (weights.max_age > absl::ZeroDuration() && job.eligible_time != absl::InfinitePast()) {
    f.age = Clamp01(absl::FDivDuration(context.now - job.eligible_time, weights.max_age));
  }
  f.fairshare = Clamp01(context.fairshare);
  const double nodes = static_cast<double>(job.resources.min_nodes);
  const double cpus = nodes * static_cast<double>(job.resources.cpus_per_node);
  const double size = (nodes / static_cast<double>(std::max<int64_t>(1, context.cluster_nodes)) +
                       cpus / static_cast<double>(std::max<int64_t>(1, context.cluster_cpus))) /
                      2;
  f.job_size = Clamp01(weights.favor_small ? 1.0 - size : size);
  f.partition = Clamp01(context.partition);
  f.qos = Clamp01(context.qos);
  return f;
}

Priority Weigh(const PriorityFactors& factors, const PriorityWeights& weights, int64_t nice) {
  Priority p;
  p.age = Weighted(factors.age, weights.age);
  p.fairshare = Weighted(factors.fairshare, weights.fairshare);
  p.job_size = Weighted(factors.job_size, weights.job_size);
  p.partition = Weighted(factors.partition, weights.partition);
  p.qos = Weighted(factors.qos, weights.qos);
  p.nice = nice;
  // The sum of the unrounded terms, as Slurm adds them before converting.
  const double sum = Clamp01(factors.age) * weights.age +
                     Clamp01(factors.fairshare) * weights.fairshare +
                     Clamp01(factors.job_size) * weights.job_size +
                     Clamp01(factors.partition) * weights.partition +
                     Clamp01(factors.qos) * weights.qos - static_cast<double>(nice);
  p.total = static_cast<uint32_t>(std::clamp(std::floor(sum), 1.0, 4294967295.0));
  return p;
}

}  // namespace canopy::fairshare
