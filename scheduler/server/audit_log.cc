#include "scheduler/server/audit_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
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

absl::Status AuditLog::Record(const AuditRecord& record) {
  const std::string line = absl::StrCat(
      Format(record, absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone())),
      "\n");
  absl::MutexLock lock(&mu_);
  // O_APPEND: one write() per line keeps lines whole even if another process appends too.
  const ssize_t n = ::write(fd_.get(), line.data(), line.size());
  if (n != static_cast<ssize_t>(line.size()) || ::fdatasync(fd_.get()) != 0) {
    const int err = errno;
    return absl::InternalError(
        absl::StrCat("cannot write the audit log ", path_, ": ", std::strerror(err)));
  }
  return absl::OkStatus();
}

}  // namespace canopy::server
