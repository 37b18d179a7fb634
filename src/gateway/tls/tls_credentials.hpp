// The listener's certificate and key (server.tls_cert_file/tls_key_file),
// as the OpenSSL context every new TLS connection is made from.
//
// Reload without dropping anyone: reload() builds a whole new context from
// the files and, only when it loads and the key matches the certificate,
// makes it the one new connections take. A connection keeps the context it
// was made from for as long as it lives: its SSL object holds a reference
// to the SSL_CTX (OpenSSL counts them), so an old context is freed when its
// last connection ends. A bad file at start is an error naming the key (the
// daemon exits 2); at a reload, the error is returned and the old pair
// keeps serving.
//
// Thread safety: current() is called by the accepting thread, reload() by
// the daemon's control thread; a mutex guards the pointer swap (one lock
// per accepted connection, never per message).
#pragma once

#include <boost/asio/ssl/context.hpp>

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "gateway/options.hpp"

namespace herald::gateway::tls {

class TlsCredentials {
 public:
  // Loads the pair; throws std::runtime_error naming the key and the file.
  explicit TlsCredentials(TlsOptions options);

  // The context new connections are made from.
  [[nodiscard]] std::shared_ptr<boost::asio::ssl::context> current() const;

  // Loads the files again; on success new connections use them, on failure
  // the message says what and where, and the old pair stays.
  std::optional<std::string> reload();

 private:
  // Throws std::runtime_error naming the key and the file.
  [[nodiscard]] std::shared_ptr<boost::asio::ssl::context> load() const;

  TlsOptions options_;
  mutable std::mutex mu_;
  std::shared_ptr<boost::asio::ssl::context> current_;
};

}  // namespace herald::gateway::tls
