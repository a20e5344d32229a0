#include "common/auth/munge.h"

#include <arpa/inet.h>
#include <munge.h>

#include <cstdlib>
#include <memory>

#include "absl/strings/str_cat.h"

namespace canopy::auth {
namespace {

struct ContextDeleter {
  void operator()(munge_ctx_t ctx) const { munge_ctx_destroy(ctx); }
};
using MungeContext = std::unique_ptr<std::remove_pointer_t<munge_ctx_t>, ContextDeleter>;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

std::string SocketName(const std::string& socket) {
  return socket.empty() ? std::string("munged's default socket") : socket;
}

absl::StatusOr<MungeContext> NewContext(const std::string& socket) {
  MungeContext ctx(munge_ctx_create());
  if (ctx == nullptr) {
    return absl::ResourceExhaustedError("libmunge could not allocate a context");
  }
  if (!socket.empty()) {
    if (munge_err_t e = munge_ctx_set(ctx.get(), MUNGE_OPT_SOCKET, socket.c_str());
        e != EMUNGE_SUCCESS) {
      return absl::InvalidArgumentError(
          absl::StrCat("munge socket ", socket, ": ", munge_ctx_strerror(ctx.get())));
    }
  }
  return ctx;
}

absl::Status SocketError(const std::string& socket, munge_ctx_t ctx) {
  return absl::UnavailableError(absl::StrCat("cannot reach munged at ", SocketName(socket), ": ",
                                             munge_ctx_strerror(ctx),
                                             "; is munged running on this host?"));
}

}  // namespace

absl::StatusOr<std::string> MungeEncode(const std::string& socket, const std::string& payload) {
  absl::StatusOr<MungeContext> ctx = NewContext(socket);
  if (!ctx.ok()) {
    return ctx.status();
  }
  char* raw = nullptr;
  const munge_err_t e =
      munge_encode(&raw, ctx->get(), payload.data(), static_cast<int>(payload.size()));
  std::unique_ptr<char, FreeDeleter> credential(raw);
  if (e == EMUNGE_SOCKET) {
    return SocketError(socket, ctx->get());
  }
  if (e != EMUNGE_SUCCESS) {
    return absl::InternalError(
        absl::StrCat("munge could not make a credential: ", munge_ctx_strerror(ctx->get())));
  }
  return std::string(credential.get());
}

absl::StatusOr<MungeIdentity> MungeDecode(const std::string& socket,
                                          const std::string& credential) {
  absl::StatusOr<MungeContext> ctx = NewContext(socket);
  if (!ctx.ok()) {
    return ctx.status();
  }
  void* raw = nullptr;
  int len = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  const munge_err_t e = munge_decode(credential.c_str(), ctx->get(), &raw, &len, &uid, &gid);
  std::unique_ptr<void, FreeDeleter> payload(raw);  // allocated even for some failures
  if (e == EMUNGE_SOCKET) {
    return SocketError(socket, ctx->get());
  }
  if (e != EMUNGE_SUCCESS) {
    return absl::UnauthenticatedError(
        absl::StrCat("munge credential refused: ", munge_ctx_strerror(ctx->get())));
  }
  MungeIdentity identity;
  identity.uid = uid;
  identity.gid = gid;
  if (payload != nullptr && len > 0) {
    identity.payload.assign(static_cast<const char*>(payload.get()), static_cast<size_t>(len));
  }
  time_t encoded = 0;
  if (munge_ctx_get(ctx->get(), MUNGE_OPT_ENCODE_TIME, &encoded) == EMUNGE_SUCCESS) {
    identity.encoded_at = absl::FromTimeT(encoded);
  }
  in_addr addr{};
  char text[INET_ADDRSTRLEN] = {};
  if (munge_ctx_get(ctx->get(), MUNGE_OPT_ADDR4, &addr) == EMUNGE_SUCCESS &&
      inet_ntop(AF_INET, &addr, text, sizeof(text)) != nullptr) {
    identity.origin_addr = text;
  }
  return identity;
}

}  // namespace canopy::auth
