#include "common/auth/step_io_tls.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "absl/strings/str_cat.h"

namespace canopy::auth {
namespace {

constexpr char kBeginCertificate[] = "-----BEGIN CERTIFICATE-----";

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using Key = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using Cert = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using Bio = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using Extension = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION, X509_EXTENSION_free>>;

std::string BioText(BIO* bio) {
  char* data = nullptr;
  const long length = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(length));
}

absl::Status OpenSslError(const char* what) {
  return absl::InternalError(absl::StrCat("cannot make the step I/O certificate: ", what));
}

}  // namespace

absl::StatusOr<StepIoServerTls> MakeStepIoServerTls(const std::string& random_token) {
  Key key(EVP_EC_gen("P-256"));
  Cert cert(X509_new());
  if (key == nullptr || cert == nullptr) {
    return OpenSslError("key generation");
  }
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);  // hosts' clocks differ a little
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 30L * 24 * 3600);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(kStepIoName), -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert.get(), cert.get(), nullptr, nullptr, 0);
  const std::string san = absl::StrCat("DNS:", kStepIoName);
  Extension ext(X509V3_EXT_conf_nid(nullptr, &ctx, NID_subject_alt_name, san.c_str()));
  if (ext == nullptr || X509_add_ext(cert.get(), ext.get(), -1) != 1 ||
      X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) {
    return OpenSslError("signing");
  }
  Bio cert_pem(BIO_new(BIO_s_mem()));
  Bio key_pem(BIO_new(BIO_s_mem()));
  if (cert_pem == nullptr || key_pem == nullptr ||
      PEM_write_bio_X509(cert_pem.get(), cert.get()) != 1 ||
      PEM_write_bio_PrivateKey(key_pem.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) !=
          1) {
    return OpenSslError("PEM encoding");
  }
  StepIoServerTls tls;
  const std::string certificate = BioText(cert_pem.get());
  tls.token = absl::StrCat(random_token, "\n", certificate);
  grpc::SslServerCredentialsOptions options(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  options.pem_key_cert_pairs.push_back({BioText(key_pem.get()), certificate});
  tls.credentials = grpc::SslServerCredentials(options);
  return tls;
}

std::shared_ptr<grpc::ChannelCredentials> StepIoChannelCredentials(const std::string& token,
                                                                   grpc::ChannelArguments& args) {
  const size_t begin = token.find(kBeginCertificate);
  if (begin == std::string::npos) {
    return grpc::InsecureChannelCredentials();
  }
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = token.substr(begin);
  args.SetSslTargetNameOverride(kStepIoName);
  return grpc::SslCredentials(options);
}

}  // namespace canopy::auth
