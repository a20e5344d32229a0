#include "ctl/sacct/render.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ctl/output/print_fields.h"
#include "ctl/output/proto_time.h"
#include "ctl/sacct/json.h"
#include "ctl/sacct/selection.h"

namespace canopy::ctl::sacct {
namespace {

using output::FieldsMode;

// print_fields with -p / -P: each field followed by the delimiter, except the last with -P.
std::string JoinParsable(const std::vector<std::string>& values, const SacctOptions& o) {
  std::string line;
  for (size_t i = 0; i < values.size(); ++i) {
    line += values[i];
    if (i + 1 < values.size() || o.mode == FieldsMode::kParsable) {
      line += o.delimiter;
    }
  }
  return line + "\n";
}

std::string Text(const SacctOptions& o, const std::vector<Line>& lines,
                 const LineContext& context) {
  std::vector<output::FieldColumn> columns;
  for (const FieldColumn& c : o.columns) {
    columns.push_back({std::string(c.field->name), c.width});
  }
  std::string out;
  if (o.mode == FieldsMode::kTable) {
    const output::FieldsPrinter printer(columns, FieldsMode::kTable, !o.no_header);
    out = printer.Header();
    for (const Line& line : lines) {
      std::vector<output::FieldCell> cells;
      for (const FieldColumn& c : o.columns) {
        cells.push_back(c.field->value(line, context, c.width));
      }
      out += printer.Row(cells);
    }
    return out;
  }
  if (!o.no_header) {
    std::vector<std::string> names;
    for (const FieldColumn& c : o.columns) {
      names.emplace_back(c.field->name);
    }
    out = JoinParsable(names, o);
  }
  for (const Line& line : lines) {
    std::vector<std::string> values;
    for (const FieldColumn& c : o.columns) {
      values.push_back(c.field->value(line, context, c.width).Format(c.width, o.mode));
    }
    out += JoinParsable(values, o);
  }
  return out;
}

google::protobuf::Timestamp WireTime(absl::Time t) {
  google::protobuf::Timestamp ts;
  ts.set_seconds(absl::ToUnixSeconds(t));
  return ts;
}

}  // namespace

SacctOutput RenderSacct(const SacctOptions& options,
                        const canopy::v1::ListAccountingResponse& response,
                        const RenderEnvironment& env) {
  LineContext context;
  context.server_time = output::ToTime(response.server_time());
  context.tz = env.tz;
  context.noconvert = options.noconvert;
  context.completion = options.completion;
  context.user_name = env.user_name;
  context.group_name = env.group_name;

  const std::vector<SelectedRecord> records = SelectRecords(options, response);
  SacctOutput result;
  if (options.json) {
    result.out = RenderJson(records, context);
    return result;
  }
  result.out = Text(options, BuildLines(options, records), context);
  return result;
}

canopy::v1::ListAccountingRequest AccountingRequest(const SacctOptions& options) {
  canopy::v1::ListAccountingRequest request;
  for (const JobSelector& selector : options.jobs) {
    if (selector.array_task.has_value()) {
      canopy::v1::ArrayTaskId* task = request.add_array_tasks();
      task->set_array_job_id(selector.job_id);
      task->set_array_task_id(*selector.array_task);
    } else if (std::find(request.job_ids().begin(), request.job_ids().end(), selector.job_id) ==
               request.job_ids().end()) {
      // "-j 1211,1211.batch" asks canopyd for job 1211 once.
      request.add_job_ids(selector.job_id);
    }
  }
  for (uint32_t uid : options.user_ids) {
    request.add_user_ids(uid);
  }
  request.set_all_users(options.all_users);
  for (const std::string& a : options.accounts) {
    request.add_accounts(a);
  }
  for (const std::string& p : options.partitions) {
    request.add_partitions(p);
  }
  for (canopy::v1::JobState s : options.states) {
    request.add_states(s);
  }
  for (const std::string& n : options.names) {
    request.add_job_names(n);
  }
  for (const std::string& q : options.qos) {
    request.add_qos(q);
  }
  for (const std::string& n : options.nodes) {
    request.add_nodes(n);
  }
  if (options.start.has_value()) {
    *request.mutable_window_start() = WireTime(*options.start);
  }
  if (options.end.has_value()) {
    *request.mutable_window_end() = WireTime(*options.end);
  }
  request.set_include_steps(!options.allocations && !options.completion);
  request.set_duplicates(options.duplicates);
  return request;
}

}  // namespace canopy::ctl::sacct
