// The QOS table's edits (qos_edit.h).
#include "scheduler/server/qos_edit.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace canopy::server {
namespace {

absl::Status ApplyOptions(const std::vector<std::pair<std::string, std::string>>& options,
                          limits::QosSpec& spec) {
  for (const auto& [key, value] : options) {
    if (absl::Status s = limits::ApplyQosOption(key, value, spec); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("QOS '", spec.name, "': ", s.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<QosChange> EditQos(const limits::QosTable& table, QosEdit edit,
                                  const std::vector<std::string>& names,
                                  const std::vector<std::pair<std::string, std::string>>& options) {
  if (names.empty()) {
    return absl::InvalidArgumentError("names: expected at least one QOS name");
  }
  if (edit == QosEdit::kModify && options.empty()) {
    return absl::InvalidArgumentError("options: MODIFY needs at least one option to set");
  }
  if (edit == QosEdit::kDelete && !options.empty()) {
    return absl::InvalidArgumentError("options: DELETE takes none");
  }
  QosChange out;
  out.specs = table.specs();
  absl::flat_hash_set<std::string> seen;
  for (const std::string& name : names) {
    if (!seen.insert(name).second) {
      continue;
    }
    auto it = std::find_if(out.specs.begin(), out.specs.end(),
                           [&](const limits::QosSpec& s) { return s.name == name; });
    const bool exists = it != out.specs.end();
    if (edit == QosEdit::kAdd && exists) {
      return absl::AlreadyExistsError(absl::StrCat("QOS '", name, "' already exists"));
    }
    if (edit != QosEdit::kAdd && !exists) {
      return absl::NotFoundError(absl::StrCat("QOS '", name, "' does not exist"));
    }
    switch (edit) {
      case QosEdit::kAdd: {
        limits::QosSpec spec;
        spec.name = name;
        spec.description = name;
        if (absl::Status s = ApplyOptions(options, spec); !s.ok()) {
          return s;
        }
        out.specs.push_back(std::move(spec));
        break;
      }
      case QosEdit::kModify:
        if (absl::Status s = ApplyOptions(options, *it); !s.ok()) {
          return s;
        }
        break;
      case QosEdit::kDelete:
        if (name == limits::kNormalQos) {
          return absl::InvalidArgumentError(
              "QOS 'normal' cannot be deleted: it is the QOS of every job that names no other");
        }
        out.specs.erase(it);
        for (limits::QosSpec& other : out.specs) {
          other.preempt.erase(std::remove(other.preempt.begin(), other.preempt.end(), name),
                              other.preempt.end());
        }
        break;
    }
    out.changed.push_back(name);
  }
  return out;
}

}  // namespace canopy::server
