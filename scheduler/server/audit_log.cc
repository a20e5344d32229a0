#include "scheduler/server/audit_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/os/thread_name.h"
#include "common/slurm/json_quote.h"

namespace canopy::server {

absl::StatusOr<std::unique_ptr<AuditLog>> AuditLog::Open(const std::string& path) {
  os::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640));
  if (!fd.valid()) {
    const int err = errno;
    return absl::PermissionDeniedError(
        absl::StrCat("cannot open the audit log ", path, ": ", std::strerror(err)));
  }
  return std::unique_ptr<AuditLog>(new AuditLog(path, std::move(fd)));
}

std::string AuditLog::Format(const AuditRecord& r, const std::string& time) {
  return absl::StrCat(
      "{\"time\":", slurm::JsonQuote(time), ",\"action\":", slurm::JsonQuote(r.action),
      ",\"by\":", slurm::JsonQuote(r.by_user), ",\"by_uid\":", r.by_uid,
      ",\"via\":", slurm::JsonQuote(r.via), ",\"peer\":", slurm::JsonQuote(r.peer),
      ",\"for\":", slurm::JsonQuote(r.for_user), ",\"for_uid\":", r.for_uid,
      ",\"job_id\":", r.job_id, ",\"job_name\":", slurm::JsonQuote(r.job_name), "}");
}

std::string AuditLog::Line(const AuditRecord& record, absl::Time time) {
  return absl::StrCat(
      Format(record, absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", time, absl::UTCTimeZone())), "\n");
}

absl::Status AuditLog::Append(const std::string& lines) {
  absl::MutexLock lock(&mu_);
  // O_APPEND: one write() keeps lines whole even if another process appends too.
  const ssize_t n = ::write(fd_.get(), lines.data(), lines.size());
  if (n != static_cast<ssize_t>(lines.size()) || ::fdatasync(fd_.get()) != 0) {
    const int err = n < 0 || n == static_cast<ssize_t>(lines.size()) ? errno : ENOSPC;
    return absl::InternalError(
        absl::StrCat("cannot write the audit log ", path_, ": ", std::strerror(err)));
  }
  return absl::OkStatus();
}

void AuditLog::RecordThen(std::vector<AuditRecord> records,
                          std::function<void(absl::Status)> then) {
  const absl::Time now = absl::Now();
  Queued queued;
  for (const AuditRecord& record : records) {
    absl::StrAppend(&queued.lines, Line(record, now));
  }
  queued.then = std::move(then);
  absl::MutexLock lock(&queue_mu_);
  queue_.push_back(std::move(queued));
  if (!writer_.joinable()) {
    writer_ = std::thread([this] {
      os::NameThisThread("canopyd-audit");
      RunWriter();
    });
  }
}

void AuditLog::RunWriter() {
  while (true) {
    std::vector<Queued> batch;
    {
      absl::MutexLock lock(&queue_mu_);
      queue_mu_.Await(absl::Condition(
          +[](AuditLog* log) ABSL_EXCLUSIVE_LOCKS_REQUIRED(log->queue_mu_) {
            return !log->queue_.empty() || log->stopping_;
          },
          this));
      if (queue_.empty()) {
        return;  // stopping, and everything is written
      }
      batch.swap(queue_);
    }
    std::string lines;
    for (const Queued& q : batch) {
      lines += q.lines;
    }
    const absl::Status written = Append(lines);
    for (Queued& q : batch) {
      q.then(written);
    }
  }
}

AuditLog::~AuditLog() {
  std::thread writer;
  {
    absl::MutexLock lock(&queue_mu_);
    stopping_ = true;
    writer.swap(writer_);
  }
  if (writer.joinable()) {
    writer.join();
  }
}

}  // namespace canopy::server
