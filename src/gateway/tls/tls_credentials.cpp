#include "gateway/tls/tls_credentials.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <stdexcept>

namespace herald::gateway::tls {
namespace ssl = boost::asio::ssl;

namespace {

// OpenSSL's own words for the last failure (e.g. "no start line" for a file
// that is not PEM, "key values mismatch"), emptied from its error queue.
std::string openssl_reason() {
  std::string out;
  while (const unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "unknown error" : out;
}

[[noreturn]] void fail(const std::string& key, const std::string& file, const std::string& what) {
  throw std::runtime_error(key + ": '" + file + "': " + what);
}

}  // namespace

TlsCredentials::TlsCredentials(TlsOptions options) : options_(std::move(options)) {
  if (options_.cert_file.empty() || options_.key_file.empty()) {
    throw std::runtime_error(
        "server.tls_cert_file and server.tls_key_file go together: set both to serve TLS, or "
        "neither");
  }
  current_ = load();
}

std::shared_ptr<ssl::context> TlsCredentials::current() const {
  std::lock_guard lock(mu_);
  return current_;
}

std::optional<std::string> TlsCredentials::reload() {
  try {
    auto fresh = load();
    std::lock_guard lock(mu_);
    current_ = std::move(fresh);
    return std::nullopt;
  } catch (const std::runtime_error& e) {
    return std::string(e.what());
  }
}

std::shared_ptr<ssl::context> TlsCredentials::load() const {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  SSL_CTX* native = ctx->native_handle();
  ERR_clear_error();
  const int min = options_.min_version == "1.3" ? TLS1_3_VERSION : TLS1_2_VERSION;
  SSL_CTX_set_min_proto_version(native, min);
  // No renegotiation (a client could make the server redo handshakes at
  // will) and a fresh ECDH key per handshake.
  SSL_CTX_set_options(
      native, SSL_OP_NO_RENEGOTIATION | SSL_OP_SINGLE_ECDH_USE | SSL_OP_CIPHER_SERVER_PREFERENCE);
  if (SSL_CTX_use_certificate_chain_file(native, options_.cert_file.c_str()) != 1)
    fail("server.tls_cert_file", options_.cert_file, openssl_reason());
  // OpenSSL checks the key against the certificate as it loads it (and
  // again below): say which mistake it is, the most common one plainly.
  const bool loaded =
      SSL_CTX_use_PrivateKey_file(native, options_.key_file.c_str(), SSL_FILETYPE_PEM) == 1;
  if (!loaded && ERR_GET_REASON(ERR_peek_last_error()) != X509_R_KEY_VALUES_MISMATCH)
    fail("server.tls_key_file", options_.key_file, openssl_reason());
  if (!loaded || SSL_CTX_check_private_key(native) != 1) {
    fail("server.tls_key_file", options_.key_file,
         "is not the key of server.tls_cert_file '" + options_.cert_file + "' (" +
             openssl_reason() + ")");
  }
  return ctx;
}

}  // namespace herald::gateway::tls
