// JobReadMask: ListJobsRequest.read_mask, checked once per call. Empty: every field of each
// Job. Otherwise a record is converted with only the fields the paths name, of the job and of
// its spec (proto_convert.h's FieldNumbers): squeue's default list converts 20 of 92 fields.
// A path below a field ("spec.time_limit.seconds", "start_time.seconds") converts that field and
// trims the rest of it after. Immutable; thread-safe.
#pragma once

#include "absl/status/statusor.h"
#include "canopy/v1/types.pb.h"
#include "google/protobuf/field_mask.pb.h"
#include "scheduler/server/proto_convert.h"

namespace canopy::server {

class JobReadMask {
 public:
  JobReadMask() = default;  // every field
  // INVALID_ARGUMENT naming the first path that is not a field path of canopy.v1.Job.
  static absl::StatusOr<JobReadMask> Parse(const google::protobuf::FieldMask& mask);

  bool all() const { return mask_.paths().empty(); }
  // The fields of Job, and of Job.spec, to convert.
  const FieldNumbers& job_fields() const { return job_; }
  const FieldNumbers& spec_fields() const { return spec_; }
  bool wants(int job_field) const { return job_(job_field); }
  // Clears what a path below a field leaves out of it; nothing for masks without such paths.
  void Trim(canopy::v1::Job& job) const;

 private:
  google::protobuf::FieldMask mask_;
  FieldNumbers job_;
  FieldNumbers spec_;
  bool trim_ = false;  // a path names a field inside a field
};

}  // namespace canopy::server
