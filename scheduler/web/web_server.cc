#include "scheduler/web/web_server.h"

#include <civetweb.h>

#include <mutex>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "scheduler/web/web_api.h"
#include "scheduler/web/web_assets.h"
#include "spdlog/spdlog.h"

namespace canopy::web {
namespace {

void Send(mg_connection* connection, int status, absl::string_view content_type,
          absl::string_view body, absl::string_view cache) {
  // HEAD: the headers GET would send, Content-Length included, and no body.
  const bool head = absl::string_view(mg_get_request_info(connection)->request_method) == "HEAD";
  mg_printf(connection,
            "HTTP/1.1 %d %s\r\nContent-Type: %.*s\r\nContent-Length: %zu\r\n"
            "Cache-Control: %.*s\r\nX-Content-Type-Options: nosniff\r\n"
            "Content-Security-Policy: default-src 'self'\r\nConnection: close\r\n\r\n",
            status, mg_get_response_code_text(connection, status),
            static_cast<int>(content_type.size()), content_type.data(), body.size(),
            static_cast<int>(cache.size()), cache.data());
  if (!head) {
    mg_write(connection, body.data(), body.size());
  }
}

}  // namespace

int WebServer::Handle(mg_connection* connection, void* self) {
  const auto* server = static_cast<const WebServer*>(self);
  const mg_request_info* request = mg_get_request_info(connection);
  const absl::string_view method = request->request_method;
  const absl::string_view path = request->local_uri != nullptr ? request->local_uri : "/";
  if (method != "GET" && method != "HEAD") {
    Send(connection, 405, "text/plain", "the cluster view is read-only: GET only\n", "no-store");
    return 405;
  }
  if (absl::StartsWith(path, "/api/")) {
    const HttpAnswer answer = AnswerApi(path, *server->service_);
    Send(connection, answer.status, answer.content_type, answer.body, "no-store");
    return answer.status;
  }
  if (const WebAsset* asset = FindAsset(path); asset != nullptr) {
    Send(connection, 200, asset->content_type, asset->body, "no-cache");
    return 200;
  }
  Send(connection, 404, "text/plain", absl::StrCat("not found: ", path, "\n"), "no-store");
  return 404;
}

absl::StatusOr<std::unique_ptr<WebServer>> WebServer::Start(
    const std::string& field, const std::string& listen,
    const server::ControllerServiceImpl* service) {
  static std::once_flag init;
  std::call_once(init, [] { mg_init_library(0); });
  std::unique_ptr<WebServer> server(new WebServer(service));
  // civetweb takes "[v6]:port" and "v4:port" as we do; two threads: a page polls every 2 s.
  const char* options[] = {"listening_ports",    listen.c_str(), "num_threads", "2",
                           "request_timeout_ms", "10000",        nullptr};
  mg_callbacks callbacks{};
  callbacks.log_message = [](const mg_connection*, const char* message) {
    spdlog::warn("web view: {}", message);
    return 1;
  };
  server->context_ = mg_start(&callbacks, nullptr, options);
  if (server->context_ == nullptr) {
    return absl::UnavailableError(absl::StrCat(field, ": cannot listen on ", listen,
                                               " (address in use, or not an address of this "
                                               "machine?)"));
  }
  mg_set_request_handler(server->context_, "/", &WebServer::Handle, server.get());
  mg_server_port ports[1] = {};
  if (mg_get_server_ports(server->context_, 1, ports) >= 1) {
    server->port_ = ports[0].port;
  }
  return server;
}

WebServer::~WebServer() {
  if (context_ != nullptr) {
    mg_stop(context_);
  }
}

}  // namespace canopy::web
