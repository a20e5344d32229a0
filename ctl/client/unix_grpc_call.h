// UnixGrpcConnection: gRPC unary calls to canopyd over its unix socket, without gRPC's client
// runtime. A command-line call is a short process: starting gRPC's client (its executor, timer
// and event-engine threads, each with a malloc arena, the channel's resolver, subchannel and
// filter stack) cost about 8 ms of a 16 ms `canopyctl ping` on a 2-vCPU VM, where this speaks
// the same protocol from the calling thread in about 1.5 ms (docs/performance.md, "The command
// line"). HTTP/2 framing, HPACK and flow control are nghttp2's; what is gRPC's here is small: the
// request headers, the 5-byte length prefix of a message and the status in the trailers
// (gRPC's PROTOCOL-HTTP2.md). Streams, TLS and MUNGE-signed TCP calls stay on gRPC itself.
//
// One connection per command; calls run one after another on it. A connection canopyd ended
// while it was idle (a restart, an idle timeout) is replaced before or, when the request was
// refused unread, during the next call, which then goes out once more. Not thread-safe.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/os/unique_fd.h"
#include "google/protobuf/message_lite.h"
#include "grpcpp/support/status.h"

namespace canopy::ctl::client {

class UnixGrpcConnection {
 public:
  using Metadata = std::vector<std::pair<std::string, std::string>>;

  // `socket_path` is the socket's file (a target's part after "unix:"). Nothing is opened until
  // the first call. Responses over `max_response_bytes` fail with RESOURCE_EXHAUSTED, as gRPC's
  // own limit does.
  UnixGrpcConnection(std::string socket_path, size_t max_response_bytes);
  ~UnixGrpcConnection();
  UnixGrpcConnection(UnixGrpcConnection&&) noexcept;
  UnixGrpcConnection& operator=(UnixGrpcConnection&&) noexcept;

  // Calls `method` ("/canopy.v1.Controller/Ping") with `request` and `metadata` (lower-case
  // keys), ending by `deadline`, and parses the answer into `response`. The status is what
  // gRPC's own client would report: the server's, UNAVAILABLE when canopyd cannot be reached
  // or the connection ends first, DEADLINE_EXCEEDED, INTERNAL for a malformed answer.
  grpc::Status Call(absl::string_view method, const google::protobuf::MessageLite& request,
                    const Metadata& metadata, absl::Time deadline,
                    google::protobuf::MessageLite* response);

 private:
  struct Session;  // nghttp2's session and what its callbacks fill in
  grpc::Status Open(absl::Time deadline);
  // Reads what arrived since the last call; drops the session if canopyd has ended it.
  void DropIfEnded();
  // One attempt; `unprocessed` is set when it failed in a way that shows canopyd did not act on
  // the request (the connection was gone as it was sent, or the stream was refused).
  grpc::Status CallOnce(absl::string_view method, const google::protobuf::MessageLite& request,
                        const Metadata& metadata, absl::Time deadline,
                        google::protobuf::MessageLite* response, bool* unprocessed);

  std::string socket_path_;
  size_t max_response_bytes_;
  os::UniqueFd fd_;
  std::unique_ptr<Session> session_;
};

// gRPC's status for an HTTP status other than 200 without a grpc-status (PROTOCOL-HTTP2.md,
// "HTTP to gRPC Status Code Mapping"). Exposed for tests.
grpc::StatusCode StatusCodeForHttpStatus(int http_status);

// grpc-message's percent-encoding undone ("%25" is "%"). Exposed for tests.
std::string PercentDecode(absl::string_view text);

}  // namespace canopy::ctl::client
