#include "ctl/client/unix_grpc_call.h"

#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace canopy::ctl::client {
namespace {

// Large windows, so that a long squeue arrives without waiting for window updates.
constexpr int32_t kWindowBytes = 16 * 1024 * 1024;
constexpr size_t kPrefixBytes = 5;  // gRPC's message prefix: compressed flag, 4-byte length
constexpr size_t kReadChunk = 64 * 1024;
// Frames gathered before they are written (a long script's DATA frames, say).
constexpr size_t kMaxUnwrittenBytes = 256 * 1024;
// How long acknowledgements may wait for the answer once the request is out (CallOnce): long
// enough for an answer that comes at once, short enough for a server that waits for them.
constexpr absl::Duration kMaxAckHold = absl::Milliseconds(50);

nghttp2_nv Header(absl::string_view name, absl::string_view value) {
  return nghttp2_nv{reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
                    reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(),
                    value.size(), NGHTTP2_NV_FLAG_NONE};
}

// poll()'s timeout for what is left until `deadline`, rounded up so a call never gives up early.
int PollTimeoutMs(absl::Time deadline) {
  const absl::Duration left = deadline - absl::Now();
  if (left <= absl::ZeroDuration()) {
    return 0;
  }
  return static_cast<int>(std::min<int64_t>(absl::ToInt64Milliseconds(left) + 1, 1 << 30));
}

grpc::Status Unavailable(std::string message) {
  return grpc::Status(grpc::StatusCode::UNAVAILABLE, std::move(message));
}

}  // namespace

grpc::StatusCode StatusCodeForHttpStatus(int http_status) {
  switch (http_status) {
    case 400:
      return grpc::StatusCode::INTERNAL;
    case 401:
      return grpc::StatusCode::UNAUTHENTICATED;
    case 403:
      return grpc::StatusCode::PERMISSION_DENIED;
    case 404:
      return grpc::StatusCode::UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
      return grpc::StatusCode::UNAVAILABLE;
    default:
      return grpc::StatusCode::UNKNOWN;
  }
}

std::string PercentDecode(absl::string_view text) {
  auto hex = [](char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
  };
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 && hex(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// nghttp2's session and what its callbacks record about the call in progress.
struct UnixGrpcConnection::Session {
  ~Session() { nghttp2_session_del(h2); }

  nghttp2_session* h2 = nullptr;
  int fd = -1;
  size_t max_response_bytes = 0;

  // The call in progress.
  int32_t stream_id = -1;
  std::string request;  // prefixed message
  size_t request_sent = 0;
  bool request_out = false;  // the request's last frame (END_STREAM) was handed to Send
  uint64_t request_end = 0;  // where the request ends in the connection's bytes (sent_total)
  bool closed = false;       // its stream has ended
  uint32_t reset_code = 0;   // HTTP/2 error code when it ended in a reset
  bool reset_here = false;   // this side reset the stream (a broken answer, or too_big)
  int http_status = 0;
  std::optional<int> grpc_status;
  std::string grpc_message;
  std::string body;  // DATA received
  bool too_big = false;
  bool answered = false;  // a frame of the call's stream has begun to arrive (OnBeginFrame)
  int send_errno = 0;     // why the last send() failed

  std::string out;  // frames gathered by Send, written by Flush
  size_t out_written = 0;
  uint64_t sent_total = 0;  // bytes written on the connection so far

  void StartCall() {
    stream_id = -1;
    request.clear();
    request_sent = 0;
    request_out = false;
    request_end = 0;
    closed = false;
    reset_code = 0;
    reset_here = false;
    http_status = 0;
    grpc_status.reset();
    grpc_message.clear();
    body.clear();
    too_big = false;
    answered = false;
    send_errno = 0;
  }

  static Session& Of(void* user_data) { return *static_cast<Session*>(user_data); }

  // nghttp2 hands over one frame at a time; they are gathered here and written together
  // (Flush), so that a call's preface, settings, headers and message leave in one write and
  // wake canopyd's reader once instead of once a frame.
  static ssize_t Send(nghttp2_session*, const uint8_t* data, size_t length, int, void* user) {
    Session& s = Of(user);
    if (s.out.size() - s.out_written >= kMaxUnwrittenBytes) {
      return NGHTTP2_ERR_WOULDBLOCK;  // Flush writes these first, then asks for more
    }
    s.out.append(reinterpret_cast<const char*>(data), length);
    return static_cast<ssize_t>(length);
  }

  // Gathers what nghttp2 has to send and writes it, as far as the socket takes it now (the rest
  // waits for POLLOUT). 0, or nghttp2's error; a failed write leaves send_errno set.
  int Flush() {
    while (true) {
      if (const int rv = nghttp2_session_send(h2); rv != 0) {
        return rv;
      }
      if (out_written == out.size()) {
        out.clear();
        out_written = 0;
        return 0;
      }
      const ssize_t n =
          ::send(fd, out.data() + out_written, out.size() - out_written, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
          return 0;
        }
        send_errno = errno;
        return NGHTTP2_ERR_CALLBACK_FAILURE;
      }
      out_written += static_cast<size_t>(n);
      sent_total += static_cast<uint64_t>(n);
      if (out_written < out.size()) {
        if (out_written >= kMaxUnwrittenBytes) {  // a long upload: drop what is written
          out.erase(0, out_written);
          out_written = 0;
        }
        return 0;  // the socket's buffer is full
      }
      // All written: nghttp2 may hold more frames than the buffer took (kMaxUnwrittenBytes).
    }
  }
  bool Unwritten() const { return out_written < out.size(); }
  // The whole request has left for the socket (not only for Send's buffer).
  bool RequestWritten() const { return request_out && sent_total >= request_end; }

  static int OnHeader(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                      size_t name_length, const uint8_t* value, size_t value_length, uint8_t,
                      void* user) {
    Session& s = Of(user);
    if (frame->hd.stream_id != s.stream_id) {
      return 0;
    }
    const absl::string_view key(reinterpret_cast<const char*>(name), name_length);
    const absl::string_view text(reinterpret_cast<const char*>(value), value_length);
    int number = 0;
    if (key == ":status" && absl::SimpleAtoi(text, &number)) {
      s.http_status = number;
    } else if (key == "grpc-status" && absl::SimpleAtoi(text, &number)) {
      s.grpc_status = number;
    } else if (key == "grpc-message") {
      s.grpc_message = PercentDecode(text);
    }
    return 0;
  }

  static int OnData(nghttp2_session* h2, uint8_t, int32_t stream_id, const uint8_t* data,
                    size_t length, void* user) {
    Session& s = Of(user);
    if (stream_id != s.stream_id || s.too_big) {
      return 0;
    }
    if (s.body.size() + length > s.max_response_bytes + kPrefixBytes) {
      s.too_big = true;
      s.body.clear();
      nghttp2_submit_rst_stream(h2, NGHTTP2_FLAG_NONE, stream_id, NGHTTP2_CANCEL);
      return 0;
    }
    s.body.append(reinterpret_cast<const char*>(data), length);
    return 0;
  }

  static int OnFrameSend(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    Session& s = Of(user);
    if (frame->hd.stream_id == s.stream_id && (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0) {
      s.request_out = true;
      s.request_end = s.sent_total + (s.out.size() - s.out_written);
    }
    if (frame->hd.stream_id == s.stream_id && frame->hd.type == NGHTTP2_RST_STREAM) {
      s.reset_here = true;
    }
    return 0;
  }

  // Before nghttp2 checks the frame, so that a frame it finds broken counts too: the reset it
  // then queues must be written at once (CallOnce), as the stream closes only once it is.
  static int OnBeginFrame(nghttp2_session*, const nghttp2_frame_hd* hd, void* user) {
    Session& s = Of(user);
    if (hd->stream_id == s.stream_id) {
      s.answered = true;
    }
    return 0;
  }

  static int OnStreamClose(nghttp2_session*, int32_t stream_id, uint32_t error_code, void* user) {
    Session& s = Of(user);
    if (stream_id == s.stream_id) {
      s.closed = true;
      s.reset_code = error_code;
    }
    return 0;
  }

  static ssize_t ReadRequest(nghttp2_session*, int32_t, uint8_t* buffer, size_t length,
                             uint32_t* flags, nghttp2_data_source*, void* user) {
    Session& s = Of(user);
    const size_t n = std::min(length, s.request.size() - s.request_sent);
    std::memcpy(buffer, s.request.data() + s.request_sent, n);
    s.request_sent += n;
    if (s.request_sent == s.request.size()) {
      *flags |= NGHTTP2_DATA_FLAG_EOF;
    }
    return static_cast<ssize_t>(n);
  }
};

UnixGrpcConnection::UnixGrpcConnection(std::string socket_path, size_t max_response_bytes)
    : socket_path_(std::move(socket_path)), max_response_bytes_(max_response_bytes) {}
UnixGrpcConnection::~UnixGrpcConnection() = default;
UnixGrpcConnection::UnixGrpcConnection(UnixGrpcConnection&&) noexcept = default;
UnixGrpcConnection& UnixGrpcConnection::operator=(UnixGrpcConnection&&) noexcept = default;

grpc::Status UnixGrpcConnection::Open(absl::Time deadline) {
  session_.reset();
  fd_.reset();
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_path_.empty() || socket_path_.size() >= sizeof(address.sun_path)) {
    return grpc::Status(
        grpc::StatusCode::INVALID_ARGUMENT,
        absl::StrCat("unix socket path '", socket_path_, "' is empty or longer than ",
                     sizeof(address.sun_path) - 1, " bytes"));
  }
  std::memcpy(address.sun_path, socket_path_.data(), socket_path_.size());
  os::UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) {
    return Unavailable(absl::StrCat("socket: ", std::strerror(errno)));
  }
  // A unix socket's connect() does not go on in the background: EAGAIN means the listener's
  // backlog is full (canopyd is busy), so try again, briefly, until the deadline.
  while (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    if (errno == EINTR) {
      continue;
    }
    if (errno != EAGAIN) {
      return Unavailable(absl::StrCat("connect to ", socket_path_, ": ", std::strerror(errno)));
    }
    if (absl::Now() >= deadline) {
      return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                          absl::StrCat("connect to ", socket_path_,
                                       ": its listen backlog stayed full until the deadline"));
    }
    absl::SleepFor(absl::Milliseconds(2));
  }

  auto session = std::make_unique<Session>();
  session->fd = fd.get();
  session->max_response_bytes = max_response_bytes_;
  nghttp2_session_callbacks* callbacks = nullptr;
  if (nghttp2_session_callbacks_new(&callbacks) != 0) {
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "out of memory");
  }
  nghttp2_session_callbacks_set_send_callback(callbacks, &Session::Send);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, &Session::OnHeader);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &Session::OnData);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &Session::OnStreamClose);
  nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, &Session::OnFrameSend);
  nghttp2_session_callbacks_set_on_begin_frame_callback(callbacks, &Session::OnBeginFrame);
  const int made = nghttp2_session_client_new(&session->h2, callbacks, session.get());
  nghttp2_session_callbacks_del(callbacks);
  if (made != 0) {
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "out of memory");
  }
  const nghttp2_settings_entry settings[] = {
      {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, static_cast<uint32_t>(kWindowBytes)},
  };
  nghttp2_submit_settings(session->h2, NGHTTP2_FLAG_NONE, settings,
                          sizeof(settings) / sizeof(settings[0]));
  nghttp2_session_set_local_window_size(session->h2, NGHTTP2_FLAG_NONE, 0, kWindowBytes);
  fd_ = std::move(fd);
  session_ = std::move(session);
  return grpc::Status::OK;
}

void UnixGrpcConnection::DropIfEnded() {
  if (session_ == nullptr) {
    return;
  }
  // Between calls nothing reads the socket: what canopyd sent meanwhile (a GOAWAY before it
  // stopped, a keepalive PING, the end of the connection) is read now, and PINGs answered.
  char buffer[kReadChunk];
  while (true) {
    pollfd p{fd_.get(), POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0 || (p.revents & (POLLIN | POLLHUP | POLLERR)) == 0) {
      break;
    }
    const ssize_t n = ::read(fd_.get(), buffer, sizeof(buffer));
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      break;
    }
    if (n <= 0 || nghttp2_session_mem_recv(session_->h2, reinterpret_cast<uint8_t*>(buffer),
                                           static_cast<size_t>(n)) < 0) {
      session_.reset();
      return;
    }
  }
  if (session_->Flush() != 0 || !nghttp2_session_want_read(session_->h2)) {
    session_.reset();  // ended (GOAWAY) or broken: the next call opens a new connection
  }
}

grpc::Status UnixGrpcConnection::Call(absl::string_view method,
                                      const google::protobuf::MessageLite& request,
                                      const Metadata& metadata, absl::Time deadline,
                                      google::protobuf::MessageLite* response) {
  DropIfEnded();
  const bool reused = session_ != nullptr;
  bool unprocessed = false;
  grpc::Status status = CallOnce(method, request, metadata, deadline, response, &unprocessed);
  if (!status.ok() && reused && unprocessed && absl::Now() < deadline) {
    // canopyd closed the connection as the call was sent (it restarted, or it dropped an idle
    // connection), so it never saw the request: send it once more on a new connection, as
    // gRPC's own client does.
    status = CallOnce(method, request, metadata, deadline, response, &unprocessed);
  }
  return status;
}

grpc::Status UnixGrpcConnection::CallOnce(absl::string_view method,
                                          const google::protobuf::MessageLite& request,
                                          const Metadata& metadata, absl::Time deadline,
                                          google::protobuf::MessageLite* response,
                                          bool* unprocessed) {
  *unprocessed = false;
  if (session_ == nullptr) {
    if (grpc::Status opened = Open(deadline); !opened.ok()) {
      return opened;
    }
  }
  Session& s = *session_;
  s.StartCall();
  const size_t size = request.ByteSizeLong();
  if (size > 0xffffffffu) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "request larger than 4 GiB");
  }
  s.request.resize(kPrefixBytes + size);
  s.request[0] = 0;  // not compressed
  for (int i = 0; i < 4; ++i) {
    s.request[1 + i] = static_cast<char>((size >> (24 - 8 * i)) & 0xff);
  }
  if (!request.SerializeToArray(s.request.data() + kPrefixBytes, static_cast<int>(size))) {
    return grpc::Status(grpc::StatusCode::INTERNAL, "could not serialize the request");
  }

  const std::string timeout = absl::StrCat(
      std::clamp<int64_t>(absl::ToInt64Milliseconds(deadline - absl::Now()), 1, 99'999'999), "m");
  // nghttp2 copies names and values (NGHTTP2_NV_FLAG_NONE) when the request is submitted.
  std::vector<nghttp2_nv> headers = {
      Header(":method", "POST"),       Header(":scheme", "http"),
      Header(":path", method),         Header(":authority", "localhost"),
      Header("te", "trailers"),        Header("content-type", "application/grpc"),
      Header("grpc-timeout", timeout),
  };
  for (const auto& [key, value] : metadata) {
    headers.push_back(Header(key, value));
  }
  nghttp2_data_provider body{};
  body.read_callback = &Session::ReadRequest;
  const int32_t stream_id =
      nghttp2_submit_request(s.h2, nullptr, headers.data(), headers.size(), &body, nullptr);
  if (stream_id < 0) {
    session_.reset();
    return grpc::Status(grpc::StatusCode::INTERNAL,
                        absl::StrCat("could not start the call: ", nghttp2_strerror(stream_id)));
  }
  s.stream_id = stream_id;

  char buffer[kReadChunk];
  absl::Time hold_until = absl::InfiniteFuture();
  while (!s.closed) {
    // Until the request is out, what nghttp2 queues goes at once. After that, the
    // acknowledgements canopyd's first frames ask for (its SETTINGS, its PING) wait and leave
    // with the next write, after the answer: sent mid-call they only woke canopyd's reader
    // while it worked on the request. They wait kMaxAckHold at most, and everything goes at
    // once again as soon as the answer begins (window updates for a long squeue, the reset of a
    // broken or too large answer), and when the session is ending (no new request allowed:
    // nghttp2 is terminating it with a GOAWAY, or canopyd said GOAWAY).
    if (s.request_out && hold_until == absl::InfiniteFuture()) {
      hold_until = absl::Now() + kMaxAckHold;
    }
    const bool write_now = !s.request_out || s.answered || s.too_big ||
                           nghttp2_session_check_request_allowed(s.h2) == 0 ||
                           absl::Now() >= hold_until;
    if (write_now || s.Unwritten()) {
      if (const int sent = s.Flush(); sent != 0) {
        const int error = s.send_errno;
        // A request canopyd did not read whole is one it did not act on; one written whole may
        // have been, whatever failed after it.
        *unprocessed =
            !s.answered && !s.RequestWritten() && (error == EPIPE || error == ECONNRESET);
        session_.reset();
        return Unavailable(
            absl::StrCat("sending to ", socket_path_, ": ",
                         error != 0 ? std::strerror(error) : nghttp2_strerror(sent)));
      }
    }
    if (s.closed) {
      break;
    }
    if (!nghttp2_session_want_read(s.h2) && !nghttp2_session_want_write(s.h2)) {
      // nghttp2 ended the session (the peer broke the protocol, or went away with GOAWAY).
      session_.reset();
      return Unavailable(absl::StrCat("the connection to ", socket_path_,
                                      " ended before the answer (is it canopyd's socket?)"));
    }
    if (absl::Now() >= deadline) {
      // The connection may still carry the late answer: start afresh on the next call.
      session_.reset();
      return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "Deadline Exceeded");
    }
    pollfd p{fd_.get(), static_cast<int16_t>(POLLIN | (s.Unwritten() ? POLLOUT : 0)), 0};
    const int ready =
        ::poll(&p, 1, PollTimeoutMs(write_now ? deadline : std::min(deadline, hold_until)));
    if (ready < 0) {
      if (errno == EINTR) {
        continue;
      }
      const int error = errno;
      session_.reset();
      return Unavailable(absl::StrCat("waiting for ", socket_path_, ": ", std::strerror(error)));
    }
    if ((p.revents & (POLLIN | POLLHUP | POLLERR)) == 0) {
      continue;  // writable only, the acknowledgements' time, or the deadline (checked above)
    }
    const ssize_t n = ::read(fd_.get(), buffer, sizeof(buffer));
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      continue;
    }
    if (n <= 0) {
      const int error = n < 0 ? errno : 0;
      const std::string why = n == 0 ? "canopyd closed the connection" : std::strerror(error);
      // Reset before the request was all written: canopyd had not read it, so it did not act on
      // it. Written whole, it may have been acted on by a canopyd that then went away without
      // answering (a submit sent again would queue a second job), as gRPC's own client assumes.
      *unprocessed = !s.answered && !s.RequestWritten() && error == ECONNRESET;
      session_.reset();
      return Unavailable(absl::StrCat("reading from ", socket_path_, ": ", why));
    }
    if (const ssize_t used = nghttp2_session_mem_recv(s.h2, reinterpret_cast<uint8_t*>(buffer),
                                                      static_cast<size_t>(n));
        used < 0) {
      session_.reset();
      return grpc::Status(grpc::StatusCode::INTERNAL,
                          absl::StrCat("canopyd's answer is not valid HTTP/2: ",
                                       nghttp2_strerror(static_cast<int>(used))));
    }
  }
  // Send what the call's frames asked for (acknowledgements, window updates, a reset), so the
  // server is not left waiting; what the socket does not take now goes with the next write.
  s.Flush();

  if (s.too_big) {
    return grpc::Status(
        grpc::StatusCode::RESOURCE_EXHAUSTED,
        absl::StrCat("Received message larger than max (over ", s.max_response_bytes, " bytes)"));
  }
  // nghttp2 checks an answer's header fields one at a time: trailers with grpc-status 0 and then
  // a field it rejects still end in its reset of the stream, and that answer is broken.
  const bool broken = s.reset_here && s.reset_code != NGHTTP2_NO_ERROR;
  if (s.grpc_status.has_value() && !(*s.grpc_status == 0 && broken)) {
    if (*s.grpc_status != 0) {
      const int code = *s.grpc_status;
      return grpc::Status(code > 0 && code <= grpc::StatusCode::UNAUTHENTICATED
                              ? static_cast<grpc::StatusCode>(code)
                              : grpc::StatusCode::UNKNOWN,
                          s.grpc_message);
    }
  } else if (s.http_status != 0 && s.http_status != 200) {
    return grpc::Status(StatusCodeForHttpStatus(s.http_status),
                        absl::StrCat("Received http2 header with status: ", s.http_status));
  } else if (broken) {
    return grpc::Status(grpc::StatusCode::INTERNAL,
                        absl::StrCat("the answer from ", socket_path_,
                                     " broke HTTP/2's rules, so the call was reset (HTTP/2 error ",
                                     s.reset_code, "); is it canopyd's socket?"));
  } else if (s.reset_code == NGHTTP2_REFUSED_STREAM) {
    // A GOAWAY's refused streams were not acted on (RFC 9113, 8.7).
    *unprocessed = true;
    return Unavailable("canopyd refused the call (it is shutting down or busy)");
  } else if (s.reset_code == NGHTTP2_ENHANCE_YOUR_CALM) {
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "canopyd asked to slow down");
  } else if (s.reset_code == NGHTTP2_INADEQUATE_SECURITY) {
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                        "canopyd refused the connection's security");
  } else if (s.reset_code == NGHTTP2_CANCEL) {
    return grpc::Status(grpc::StatusCode::CANCELLED, "the call was cancelled");
  } else {
    return grpc::Status(
        grpc::StatusCode::INTERNAL,
        s.reset_code != 0 ? absl::StrCat("canopyd reset the call (HTTP/2 error ", s.reset_code, ")")
                          : std::string("canopyd's answer carried no grpc-status"));
  }

  // One message: a flag byte (0: not compressed; nothing asked canopyd to compress), its
  // length (big-endian), the message.
  const std::string& b = s.body;
  if (b.size() < kPrefixBytes) {
    return grpc::Status(grpc::StatusCode::INTERNAL, "canopyd's answer carried no message");
  }
  if (b[0] != 0) {
    return grpc::Status(grpc::StatusCode::INTERNAL,
                        "canopyd's answer is compressed, which was not asked for");
  }
  size_t length = 0;
  for (int i = 1; i < 5; ++i) {
    length = (length << 8) | static_cast<unsigned char>(b[i]);
  }
  if (b.size() != kPrefixBytes + length) {
    return grpc::Status(grpc::StatusCode::INTERNAL,
                        absl::StrCat("canopyd's answer holds ", b.size() - kPrefixBytes,
                                     " bytes where its prefix announced ", length));
  }
  if (!response->ParseFromArray(b.data() + kPrefixBytes, static_cast<int>(length))) {
    return grpc::Status(grpc::StatusCode::INTERNAL, "could not parse canopyd's answer");
  }
  return grpc::Status::OK;
}

}  // namespace canopy::ctl::client
