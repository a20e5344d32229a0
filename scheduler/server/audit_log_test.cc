// The audit log: one JSON line per record, fdatasync'd before the caller hears back, written on
// the log's own thread for callers that must not wait on the disk.
#include "scheduler/server/audit_log.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::server {
namespace {

using ::testing::HasSubstr;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

AuditRecord Submission(uint32_t job_id) {
  AuditRecord r;
  r.action = "submit";
  r.by_user = "portal";
  r.by_uid = 990;
  r.via = "unix socket";
  r.for_user = "alice";
  r.for_uid = 1000;
  r.job_id = job_id;
  r.job_name = "train \"big\"";
  return r;
}

TEST(AuditLogTest, RecordThenWritesInCallOrderBeforeAnsweringAndOnStop) {
  std::string dir = (std::filesystem::temp_directory_path() / "audit-XXXXXX").string();
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  const std::string path = dir + "/audit.log";
  absl::StatusOr<std::unique_ptr<AuditLog>> log = AuditLog::Open(path);
  ASSERT_TRUE(log.ok()) << log.status();
  std::promise<std::string> seen_at_answer;
  (*log)->RecordThen({Submission(1), Submission(2)}, [&](absl::Status s) {
    EXPECT_TRUE(s.ok()) << s;
    seen_at_answer.set_value(ReadAll(path));
  });
  // Already on disk when the caller is answered.
  const std::string at_answer = seen_at_answer.get_future().get();
  EXPECT_THAT(at_answer, HasSubstr("\"job_id\":1,"));
  EXPECT_THAT(at_answer, HasSubstr("\"job_id\":2,"));
  int answered = 0;
  for (uint32_t id = 3; id <= 50; ++id) {
    (*log)->RecordThen({Submission(id)}, [&](absl::Status s) {
      EXPECT_TRUE(s.ok()) << s;
      ++answered;
    });
  }
  log->reset();  // writes what is queued, answers, and stops
  EXPECT_EQ(answered, 48);
  const std::vector<std::string> lines = absl::StrSplit(ReadAll(path), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 50u);
  for (uint32_t id = 1; id <= 50; ++id) {
    EXPECT_THAT(lines[id - 1], HasSubstr(absl::StrCat("\"job_id\":", id, ",")));
  }
  std::filesystem::remove_all(dir);
  EXPECT_THAT(lines[0], HasSubstr("\"by\":\"portal\",\"by_uid\":990,\"via\":\"unix socket\""));
  EXPECT_THAT(lines[0], HasSubstr("\"job_name\":\"train \\\"big\\\"\"}"));
}

TEST(AuditLogTest, AFailedWriteIsReportedToTheCallerWithThePath) {
  absl::StatusOr<std::unique_ptr<AuditLog>> log = AuditLog::Open("/dev/full");
  ASSERT_TRUE(log.ok()) << log.status();
  std::promise<absl::Status> written;
  (*log)->RecordThen({Submission(1)}, [&](absl::Status s) { written.set_value(s); });
  const absl::Status s = written.get_future().get();
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(s.message(), HasSubstr("cannot write the audit log /dev/full"));
}

}  // namespace
}  // namespace canopy::server
