// The associations and usage tables (sqlite_accounting_rows.h).
#include "scheduler/persistence/sqlite_accounting_rows.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace canopy::persistence {
namespace {

std::string Blob(sqlite3_stmt* s, int col) {
  const void* bytes = sqlite3_column_blob(s, col);
  return bytes == nullptr ? std::string()
                          : std::string(static_cast<const char*>(bytes),
                                        static_cast<size_t>(sqlite3_column_bytes(s, col)));
}

// "Key=value\0Key=value\0" (NUL cannot occur in a sacctmgr value).
std::string EncodeAttributes(const std::vector<std::pair<std::string, std::string>>& attributes) {
  std::string out;
  for (const auto& [key, value] : attributes) {
    absl::StrAppend(&out, key, "=", value);
    out.push_back('\0');
  }
  return out;
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> DecodeAttributes(
    const std::string& bytes) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t start = 0;
  for (size_t end; (end = bytes.find('\0', start)) != std::string::npos; start = end + 1) {
    const std::string item = bytes.substr(start, end - start);
    const size_t eq = item.find('=');
    if (eq == std::string::npos) {
      return absl::DataLossError(absl::StrCat("attribute without '=': ", item));
    }
    out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  return out;
}

// meta rows hold integers; an unset time is an absent row.
absl::Status SaveMetaTime(sqlite3* db, const char* key, absl::Time t) {
  if (t == absl::InfinitePast() || t == absl::InfiniteFuture()) {
    absl::StatusOr<SqliteStatement> del = Prepare(db, "DELETE FROM meta WHERE key = ?1");
    if (!del.ok()) {
      return del.status();
    }
    sqlite3_bind_text(del->get(), 1, key, -1, SQLITE_STATIC);
    return StepDone(db, del->get(), absl::StrCat("clearing ", key));
  }
  absl::StatusOr<SqliteStatement> stmt = Prepare(
      db, "INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value=?2");
  if (!stmt.ok()) {
    return stmt.status();
  }
  sqlite3_bind_text(stmt->get(), 1, key, -1, SQLITE_STATIC);
  sqlite3_bind_int64(stmt->get(), 2, absl::ToUnixMicros(t));
  return StepDone(db, stmt->get(), absl::StrCat("saving ", key));
}

absl::StatusOr<std::optional<int64_t>> LoadMeta(sqlite3* db, const char* key) {
  absl::StatusOr<SqliteStatement> stmt = Prepare(db, "SELECT value FROM meta WHERE key = ?1");
  if (!stmt.ok()) {
    return stmt.status();
  }
  sqlite3_bind_text(stmt->get(), 1, key, -1, SQLITE_STATIC);
  const int rc = sqlite3_step(stmt->get());
  if (rc == SQLITE_DONE) {
    return std::optional<int64_t>();
  }
  if (rc != SQLITE_ROW) {
    return SqliteError(db, rc, absl::StrCat("reading ", key));
  }
  return std::optional<int64_t>(sqlite3_column_int64(stmt->get(), 0));
}

absl::Time MicrosOr(const std::optional<int64_t>& us) {
  return us.has_value() ? absl::FromUnixMicros(*us) : absl::InfinitePast();
}

}  // namespace

absl::Status SaveAssociationRows(sqlite3* db,
                                 const std::vector<fairshare::AssociationSpec>& specs) {
  if (absl::Status s = Exec(db, "DELETE FROM associations"); !s.ok()) {
    return s;
  }
  absl::StatusOr<SqliteStatement> stmt =
      Prepare(db,
              "INSERT INTO associations(seq, account, user, parent, shares, attributes) "
              "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  if (!stmt.ok()) {
    return stmt.status();
  }
  sqlite3_stmt* s = stmt->get();
  for (size_t i = 0; i < specs.size(); ++i) {
    const fairshare::AssociationSpec& spec = specs[i];
    sqlite3_reset(s);
    sqlite3_bind_int64(s, 1, static_cast<int64_t>(i));
    BindText(s, 2, spec.account);
    BindText(s, 3, spec.user);
    BindText(s, 4, spec.parent);
    sqlite3_bind_int64(s, 5, spec.shares);
    const std::string attributes = EncodeAttributes(spec.attributes);
    sqlite3_bind_blob(s, 6, attributes.data(), static_cast<int>(attributes.size()),
                      SQLITE_TRANSIENT);
    if (absl::Status st =
            StepDone(db, s, absl::StrCat("saving association ", spec.account, "/", spec.user));
        !st.ok()) {
      return st;
    }
  }
  return Exec(db,
              "INSERT INTO meta(key, value) VALUES ('associations_saved', 1) "
              "ON CONFLICT(key) DO UPDATE SET value=1");
}

absl::Status SaveUsageRows(sqlite3* db, const UsageState& usage) {
  if (absl::Status s = Exec(db, "DELETE FROM usage"); !s.ok()) {
    return s;
  }
  absl::StatusOr<SqliteStatement> stmt =
      Prepare(db, "INSERT INTO usage(account, user, usage) VALUES (?1, ?2, ?3)");
  if (!stmt.ok()) {
    return stmt.status();
  }
  sqlite3_stmt* s = stmt->get();
  for (const fairshare::UsageLedger::Entry& e : usage.ledger.entries) {
    sqlite3_reset(s);
    BindText(s, 1, e.account);
    BindText(s, 2, e.user);
    sqlite3_bind_double(s, 3, e.usage);
    if (absl::Status st = StepDone(db, s, absl::StrCat("saving usage of ", e.account, "/", e.user));
        !st.ok()) {
      return st;
    }
  }
  for (const auto& [key, t] : {std::pair{"usage_as_of_us", usage.ledger.as_of},
                               std::pair{"usage_last_reset_us", usage.ledger.last_reset},
                               std::pair{"usage_charged_through_us", usage.charged_through}}) {
    if (absl::Status st = SaveMetaTime(db, key, t); !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<StoredAccounting> LoadAccountingRows(sqlite3* db) {
  StoredAccounting out;
  absl::StatusOr<std::optional<int64_t>> saved = LoadMeta(db, "associations_saved");
  if (!saved.ok()) {
    return saved.status();
  }
  if (saved->has_value()) {
    absl::StatusOr<SqliteStatement> stmt = Prepare(
        db, "SELECT account, user, parent, shares, attributes FROM associations ORDER BY seq");
    if (!stmt.ok()) {
      return stmt.status();
    }
    std::vector<fairshare::AssociationSpec> specs;
    int rc;
    while ((rc = sqlite3_step(stmt->get())) == SQLITE_ROW) {
      fairshare::AssociationSpec spec;
      spec.account = ColumnText(stmt->get(), 0);
      spec.user = ColumnText(stmt->get(), 1);
      spec.parent = ColumnText(stmt->get(), 2);
      spec.shares = sqlite3_column_int64(stmt->get(), 3);
      absl::StatusOr<std::vector<std::pair<std::string, std::string>>> attributes =
          DecodeAttributes(Blob(stmt->get(), 4));
      if (!attributes.ok()) {
        return absl::DataLossError(absl::StrCat("associations row ", spec.account, "/", spec.user,
                                                ": ", attributes.status().message()));
      }
      spec.attributes = *std::move(attributes);
      specs.push_back(std::move(spec));
    }
    if (rc != SQLITE_DONE) {
      return SqliteError(db, rc, "reading associations");
    }
    out.associations = std::move(specs);
  }
  absl::StatusOr<std::optional<int64_t>> as_of = LoadMeta(db, "usage_as_of_us");
  if (!as_of.ok()) {
    return as_of.status();
  }
  if (as_of->has_value()) {
    UsageState usage;
    usage.ledger.as_of = MicrosOr(*as_of);
    absl::StatusOr<std::optional<int64_t>> last_reset = LoadMeta(db, "usage_last_reset_us");
    absl::StatusOr<std::optional<int64_t>> through = LoadMeta(db, "usage_charged_through_us");
    if (!last_reset.ok() || !through.ok()) {
      return !last_reset.ok() ? last_reset.status() : through.status();
    }
    usage.ledger.last_reset = MicrosOr(*last_reset);
    usage.charged_through = MicrosOr(*through);
    absl::StatusOr<SqliteStatement> stmt =
        Prepare(db, "SELECT account, user, usage FROM usage ORDER BY account, user");
    if (!stmt.ok()) {
      return stmt.status();
    }
    int rc;
    while ((rc = sqlite3_step(stmt->get())) == SQLITE_ROW) {
      usage.ledger.entries.push_back({ColumnText(stmt->get(), 0), ColumnText(stmt->get(), 1),
                                      sqlite3_column_double(stmt->get(), 2)});
    }
    if (rc != SQLITE_DONE) {
      return SqliteError(db, rc, "reading usage");
    }
    out.usage = std::move(usage);
  }
  return out;
}

}  // namespace canopy::persistence
