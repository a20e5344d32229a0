// One value of a job record <-> one SQLite column: the encodings of the jobs table
// (docs/formats/sqlite-schema.md), shared by the job rows and the array texts (array_texts),
// which must store a script and an environment exactly as a job row does.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "scheduler/core/job.h"
#include "scheduler/core/shared_text.h"

namespace canopy::persistence::job_values {

// ---- One value <-> one column. Times are unix microseconds and durations microseconds, NULL
// for "never"/"unset"; lists are NUL-separated blobs (execve's own separator, so any argument
// or environment value round-trips).

inline void Bind(sqlite3_stmt* s, int i, int64_t v) { sqlite3_bind_int64(s, i, v); }
inline void Bind(sqlite3_stmt* s, int i, int32_t v) { sqlite3_bind_int64(s, i, v); }
inline void Bind(sqlite3_stmt* s, int i, uint32_t v) { sqlite3_bind_int64(s, i, v); }
inline void Bind(sqlite3_stmt* s, int i, bool v) { sqlite3_bind_int(s, i, v ? 1 : 0); }
inline void Bind(sqlite3_stmt* s, int i, const std::string& v) {
  sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}
inline void Bind(sqlite3_stmt* s, int i, absl::Time v) {
  if (v == absl::InfinitePast()) {
    sqlite3_bind_null(s, i);
  } else {
    sqlite3_bind_int64(s, i, absl::ToUnixMicros(v));
  }
}
inline void Bind(sqlite3_stmt* s, int i, absl::Duration v) {
  if (v == absl::InfiniteDuration()) {
    sqlite3_bind_null(s, i);
  } else {
    sqlite3_bind_int64(s, i, absl::ToInt64Microseconds(v));
  }
}
inline void Bind(sqlite3_stmt* s, int i, const std::optional<absl::Duration>& v) {
  Bind(s, i, v.value_or(absl::InfiniteDuration()));
}
inline void Bind(sqlite3_stmt* s, int i, core::JobState v) {
  Bind(s, i, std::string(core::JobStateName(v)));
}
inline void Bind(sqlite3_stmt* s, int i, core::JobReason v) {
  Bind(s, i, std::string(core::JobReasonName(v)));
}
inline void Bind(sqlite3_stmt* s, int i, const std::optional<core::JobState>& v) {
  if (v.has_value()) {
    Bind(s, i, *v);
  } else {
    sqlite3_bind_null(s, i);
  }
}
inline void BindBlob(sqlite3_stmt* s, int i, const std::string& bytes) {
  sqlite3_bind_blob(s, i, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
}
inline void Bind(sqlite3_stmt* s, int i, const std::vector<std::string>& v) {
  std::string bytes;
  for (const std::string& item : v) {
    absl::StrAppend(&bytes, item, std::string(1, '\0'));
  }
  BindBlob(s, i, bytes);
}
inline void Bind(sqlite3_stmt* s, int i, const std::map<std::string, std::string>& v) {
  std::string bytes;
  for (const auto& [key, value] : v) {
    absl::StrAppend(&bytes, key, "=", value, std::string(1, '\0'));
  }
  BindBlob(s, i, bytes);
}
inline void Bind(sqlite3_stmt* s, int i, const std::vector<uint32_t>& v) {
  Bind(s, i, absl::StrJoin(v, ","));
}
inline void Bind(sqlite3_stmt* s, int i, const std::optional<uint32_t>& v) {
  if (v.has_value()) {
    Bind(s, i, *v);
  } else {
    sqlite3_bind_null(s, i);
  }
}
inline void Bind(sqlite3_stmt* s, int i, const std::optional<bool>& v) {
  if (v.has_value()) {
    Bind(s, i, *v);
  } else {
    sqlite3_bind_null(s, i);
  }
}
// Dependencies as "TYPE:JOB:TASK:WHOLE:DELAY_US:STATE" items joined by ',' (TASK empty when
// none; Slurm's names for the type and the state), e.g. "afterok:5::1:0:unfulfilled".
inline void Bind(sqlite3_stmt* s, int i, const std::vector<core::Dependency>& v) {
  std::vector<std::string> items;
  for (const core::Dependency& d : v) {
    items.push_back(absl::StrCat(core::DependencyTypeName(d.type), ":", d.job_id, ":",
                                 d.array_task_id.has_value() ? absl::StrCat(*d.array_task_id) : "",
                                 ":", d.whole_array ? 1 : 0, ":",
                                 absl::ToInt64Microseconds(d.delay), ":",
                                 core::DependencyStateName(d.state)));
  }
  Bind(s, i, absl::StrJoin(items, ","));
}

inline bool IsNull(sqlite3_stmt* s, int i) { return sqlite3_column_type(s, i) == SQLITE_NULL; }
inline std::string Bytes(sqlite3_stmt* s, int i) {
  const void* data = sqlite3_column_blob(s, i);
  return data == nullptr ? std::string()
                         : std::string(static_cast<const char*>(data),
                                       static_cast<size_t>(sqlite3_column_bytes(s, i)));
}
inline absl::Status Bad(absl::string_view what) { return absl::DataLossError(what); }

inline absl::Status Read(sqlite3_stmt* s, int i, int64_t& v) {
  v = sqlite3_column_int64(s, i);
  return absl::OkStatus();
}
inline absl::Status Read(sqlite3_stmt* s, int i, int32_t& v) {
  const int64_t raw = sqlite3_column_int64(s, i);
  if (raw < INT32_MIN || raw > INT32_MAX) {
    return Bad(absl::StrCat(raw, " is out of range"));
  }
  v = static_cast<int32_t>(raw);
  return absl::OkStatus();
}
inline absl::Status Read(sqlite3_stmt* s, int i, uint32_t& v) {
  const int64_t raw = sqlite3_column_int64(s, i);
  if (raw < 0 || raw > UINT32_MAX) {
    return Bad(absl::StrCat(raw, " is out of range"));
  }
  v = static_cast<uint32_t>(raw);
  return absl::OkStatus();
}
inline absl::Status Read(sqlite3_stmt* s, int i, bool& v) {
  v = sqlite3_column_int64(s, i) != 0;
  return absl::OkStatus();
}
inline absl::Status Read(sqlite3_stmt* s, int i, std::string& v) {
  v = Bytes(s, i);
  return absl::OkStatus();
}
inline absl::Status Read(sqlite3_stmt* s, int i, absl::Time& v) {
  v = IsNull(s, i) ? absl::InfinitePast() : absl::FromUnixMicros(sqlite3_column_int64(s, i));
  return absl::OkStatus();
}
inline absl::Status Read(sqlite3_stmt* s, int i, absl::Duration& v) {
  v = IsNull(s, i) ? absl::InfiniteDuration() : absl::Microseconds(sqlite3_column_int64(s, i));
  return absl::OkStatus();
}
inline absl::Status Read(sqlite3_stmt* s, int i, std::optional<absl::Duration>& v) {
  v = IsNull(s, i) ? std::nullopt
                   : std::optional<absl::Duration>(absl::Microseconds(sqlite3_column_int64(s, i)));
  return absl::OkStatus();
}
inline absl::Status Read(sqlite3_stmt* s, int i, core::JobState& v) {
  const std::string name = Bytes(s, i);
  std::optional<core::JobState> state = core::JobStateFromName(name);
  if (!state.has_value()) {
    return Bad(absl::StrCat("'", name, "' is not a job state"));
  }
  v = *state;
  return absl::OkStatus();
}
inline absl::Status Read(sqlite3_stmt* s, int i, core::JobReason& v) {
  const std::string name = Bytes(s, i);
  std::optional<core::JobReason> reason = core::JobReasonFromName(name);
  if (!reason.has_value()) {
    return Bad(absl::StrCat("'", name, "' is not a pending reason"));
  }
  v = *reason;
  return absl::OkStatus();
}
inline absl::Status Read(sqlite3_stmt* s, int i, std::optional<core::JobState>& v) {
  if (IsNull(s, i)) {
    v.reset();
    return absl::OkStatus();
  }
  core::JobState state = core::JobState::kPending;
  absl::Status st = Read(s, i, state);
  v = state;
  return st;
}
inline std::vector<std::string> SplitNul(const std::string& bytes) {
  std::vector<std::string> items;
  size_t start = 0;
  for (size_t end; (end = bytes.find('\0', start)) != std::string::npos; start = end + 1) {
    items.push_back(bytes.substr(start, end - start));
  }
  return items;
}
inline absl::Status Read(sqlite3_stmt* s, int i, std::vector<std::string>& v) {
  v = SplitNul(Bytes(s, i));
  return absl::OkStatus();
}
inline absl::Status Read(sqlite3_stmt* s, int i, std::map<std::string, std::string>& v) {
  v.clear();
  for (const std::string& item : SplitNul(Bytes(s, i))) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos) {
      return Bad(absl::StrCat("environment item without '=': ", item));
    }
    v[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return absl::OkStatus();
}
inline absl::Status Read(sqlite3_stmt* s, int i, std::optional<uint32_t>& v) {
  if (IsNull(s, i)) {
    v.reset();
    return absl::OkStatus();
  }
  uint32_t value = 0;
  if (absl::Status st = Read(s, i, value); !st.ok()) {
    return st;
  }
  v = value;
  return absl::OkStatus();
}
inline absl::Status Read(sqlite3_stmt* s, int i, std::optional<bool>& v) {
  v = IsNull(s, i) ? std::nullopt : std::optional<bool>(sqlite3_column_int64(s, i) != 0);
  return absl::OkStatus();
}
inline absl::Status Read(sqlite3_stmt* s, int i, std::vector<core::Dependency>& v) {
  v.clear();
  for (absl::string_view text : absl::StrSplit(Bytes(s, i), ',', absl::SkipEmpty())) {
    const std::vector<absl::string_view> f = absl::StrSplit(text, ':');
    core::Dependency d;
    std::optional<core::DependencyType> type;
    std::optional<core::DependencyState> state;
    int64_t delay_us = 0;
    uint32_t task = 0;
    bool ok = f.size() == 6 && (type = core::DependencyTypeFromName(f[0])).has_value() &&
              absl::SimpleAtoi(f[1], &d.job_id) &&
              (f[2].empty() || absl::SimpleAtoi(f[2], &task)) && (f[3] == "0" || f[3] == "1") &&
              absl::SimpleAtoi(f[4], &delay_us) &&
              (state = core::DependencyStateFromName(f[5])).has_value();
    if (!ok) {
      return Bad(
          absl::StrCat("'", text, "' is not a dependency (TYPE:JOB:TASK:WHOLE:DELAY_US:STATE)"));
    }
    d.type = *type;
    if (!f[2].empty()) {
      d.array_task_id = task;
    }
    d.whole_array = f[3] == "1";
    d.delay = absl::Microseconds(delay_us);
    d.state = *state;
    v.push_back(d);
  }
  return absl::OkStatus();
}
inline absl::Status Read(sqlite3_stmt* s, int i, std::vector<uint32_t>& v) {
  v.clear();
  for (absl::string_view item : absl::StrSplit(Bytes(s, i), ',', absl::SkipEmpty())) {
    uint32_t id = 0;
    if (!absl::SimpleAtoi(item, &id)) {
      return Bad(absl::StrCat("'", item, "' is not a group id"));
    }
    v.push_back(id);
  }
  return absl::OkStatus();
}

// A job's shared texts (script, environment) are stored as their values.
template <typename T>
inline void Bind(sqlite3_stmt* s, int i, const core::Shared<T>& v) {
  Bind(s, i, v.get());
}
template <typename T>
inline absl::Status Read(sqlite3_stmt* s, int i, core::Shared<T>& v) {
  T value;
  absl::Status st = Read(s, i, value);
  if (st.ok()) {
    v = core::Shared<T>(std::move(value));
  }
  return st;
}

}  // namespace canopy::persistence::job_values
