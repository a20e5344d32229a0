#include "scheduler/web/web_api.h"

#include <cstdint>
#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "scheduler/server/topology_view.h"

namespace canopy::web {
namespace {

HttpAnswer Error(int status, absl::string_view message) {
  // {"error": "..."} with the message escaped as JSON (through a protobuf Value).
  google::protobuf::Value value;
  value.set_string_value(std::string(message));
  std::string text;
  (void)google::protobuf::util::MessageToJsonString(value, &text);
  return HttpAnswer{.status = status, .body = absl::StrCat("{\"error\":", text, "}")};
}

HttpAnswer Json(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;  // a page reads 0 and "" as they are
  HttpAnswer answer;
  if (!google::protobuf::util::MessageToJsonString(message, &answer.body, options).ok()) {
    return Error(500, "cannot print the answer as JSON");
  }
  return answer;
}

HttpAnswer FromGrpc(const grpc::Status& status) {
  switch (status.error_code()) {
    case grpc::StatusCode::NOT_FOUND:
      return Error(404, status.error_message());
    case grpc::StatusCode::PERMISSION_DENIED:
      return Error(403, status.error_message());
    case grpc::StatusCode::INVALID_ARGUMENT:
      return Error(400, status.error_message());
    default:
      return Error(500, status.error_message());
  }
}

lifecycle::Caller WebCaller() {
  lifecycle::Caller caller;
  caller.user_name = "(web)";
  caller.uid = std::numeric_limits<uint32_t>::max();  // no one's: the page owns no job
  return caller;
}

}  // namespace

HttpAnswer AnswerApi(absl::string_view path, const server::ControllerServiceImpl& service) {
  absl::ConsumeSuffix(&path, "/");
  if (path == "/api/v1/ping") {
    canopy::v1::PingResponse ping;
    server::Controller& controller = *service.controller();
    ping.set_cluster_name(controller.config().cluster_name);
    ping.set_version(CANOPY_VERSION);
    ping.set_uptime_seconds(absl::ToInt64Seconds(controller.Now() - controller.start_time()));
    return Json(ping);
  }
  if (path == "/api/v1/topology") {
    canopy::v1::GetTopologyResponse topology;
    if (absl::Status s = server::FillTopology(*service.controller()->Snapshot(), "", &topology);
        !s.ok()) {
      return Error(500, s.message());
    }
    return Json(topology);
  }
  if (path == "/api/v1/nodes") {
    canopy::v1::ListNodesRequest request;
    canopy::v1::ListNodesResponse nodes;
    if (grpc::Status s = service.ListNodesFor(&request, &nodes); !s.ok()) {
      return FromGrpc(s);
    }
    return Json(nodes);
  }
  if (path == "/api/v1/jobs") {
    canopy::v1::ListJobsRequest request;
    canopy::v1::ListJobsResponse jobs;
    if (grpc::Status s = service.ListJobsFor(WebCaller(), &request, &jobs); !s.ok()) {
      return FromGrpc(s);
    }
    return Json(jobs);
  }
  if (absl::string_view id_text = path; absl::ConsumePrefix(&id_text, "/api/v1/jobs/")) {
    uint32_t id = 0;
    if (!absl::SimpleAtoi(id_text, &id) || id == 0) {
      return Error(400, absl::StrCat("'", id_text, "' is not a job id (expected a number)"));
    }
    canopy::v1::ListJobsRequest request;
    request.add_job_ids(id);
    canopy::v1::ListJobsResponse jobs;
    if (grpc::Status s = service.ListJobsFor(WebCaller(), &request, &jobs); !s.ok()) {
      return FromGrpc(s);
    }
    return Json(jobs.jobs(0));
  }
  return Error(404, absl::StrCat("no such API path: ", path,
                                 " (try /api/v1/topology, /api/v1/nodes, /api/v1/jobs, "
                                 "/api/v1/jobs/ID or /api/v1/ping)"));
}

}  // namespace canopy::web
