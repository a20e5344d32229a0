// AuditLog: canopyd's append-only record of actions taken for someone else (a portal's service
// user submitting for a named user, root's sbatch --uid), one JSON object per line in
// <state_dir>/audit.log. Each record is written and fsync'd before the caller is answered, so
// an acknowledged submission on behalf of someone is always on record. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/os/unique_fd.h"

namespace canopy::server {

struct AuditRecord {
  std::string action;  // "submit"
  std::string by_user;
  uint32_t by_uid = 0;
  std::string via;   // how canopyd knew the actor: "unix socket", "munge"
  std::string peer;  // gRPC's peer string
  std::string for_user;
  uint32_t for_uid = 0;
  uint32_t job_id = 0;
  std::string job_name;
};

class AuditLog {
 public:
  // Opens (creating, mode 0640) `path` for appending. Errors name the path.
  static absl::StatusOr<std::unique_ptr<AuditLog>> Open(const std::string& path);

  // Writes what RecordThen queued, then stops its thread.
  ~AuditLog();

  // Appends a line per record, {"time":"2026-12-05T01:02:03Z","action":"submit","by":"portal",
  // ...}, on the log's own thread (started on first use), then runs `then` there with the
  // outcome: its callers (the controller's owner thread, answering a submission) must not wait
  // on the disk. Records queued while a write is under way share the
  // next write and fdatasync. Records keep the order of the calls.
  void RecordThen(std::vector<AuditRecord> records, std::function<void(absl::Status)> then);

  // The line RecordThen writes for `record` at `time` (RFC 3339), without the newline.
  static std::string Format(const AuditRecord& record, const std::string& time);

  const std::string& path() const { return path_; }

 private:
  AuditLog(std::string path, os::UniqueFd fd) : path_(std::move(path)), fd_(std::move(fd)) {}
  // Appends whole lines with one write() and one fdatasync.
  absl::Status Append(const std::string& lines);
  static std::string Line(const AuditRecord& record, absl::Time time);
  void RunWriter();

  const std::string path_;
  absl::Mutex mu_;
  os::UniqueFd fd_ ABSL_GUARDED_BY(mu_);

  struct Queued {
    std::string lines;
    std::function<void(absl::Status)> then;
  };
  absl::Mutex queue_mu_;
  std::vector<Queued> queue_ ABSL_GUARDED_BY(queue_mu_);
  bool stopping_ ABSL_GUARDED_BY(queue_mu_) = false;
  std::thread writer_ ABSL_GUARDED_BY(queue_mu_);
};

}  // namespace canopy::server
