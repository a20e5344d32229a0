// `sacctmgr show qos` (qos_show.h).
#include "ctl/sacctmgr/qos_show.h"

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "ctl/sacctmgr/qos_fields.h"
#include "ctl/sacctmgr/qos_values.h"

namespace canopy::ctl::sacctmgr {
namespace {

// An empty condition list matches everything; names compare without case, as slurmdbd does.
bool QosListMatches(const std::vector<std::string>& list, const std::string& value) {
  return list.empty() ||
         std::find(list.begin(), list.end(), absl::AsciiStrToLower(value)) != list.end();
}

bool Selected(const Command& c, const canopy::v1::Qos& qos) {
  return QosListMatches(c.names, qos.name()) && QosListMatches(c.descriptions, qos.description()) &&
         QosListMatches(c.preempt_modes, PreemptModeText(qos));
}

}  // namespace

absl::StatusOr<std::string> RenderShowQos(const GlobalOptions& options, const Command& command,
                                          const canopy::v1::ListQosResponse& answer) {
  std::vector<std::string> defaults = absl::StrSplit(kQosFormat, ',');
  const std::vector<std::string>& items = command.format.empty() ? defaults : command.format;
  absl::StatusOr<std::vector<QosField>> fields = ParseQosFields(items);
  if (!fields.ok()) {
    return fields.status();
  }
  std::vector<output::FieldColumn> columns;
  for (const QosField& f : *fields) {
    columns.push_back(f.column);
  }
  const output::FieldsPrinter printer(columns, options.mode, !options.no_header);
  std::string text = printer.Header();
  for (const canopy::v1::Qos& qos : answer.qos()) {
    if (!Selected(command, qos)) {
      continue;
    }
    std::vector<output::FieldCell> cells;
    for (const QosField& f : *fields) {
      cells.push_back(QosFieldValue(f.id, qos));
    }
    text += printer.Row(cells);
  }
  return text;
}

}  // namespace canopy::ctl::sacctmgr
