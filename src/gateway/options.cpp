#include "gateway/options.hpp"

#include <thread>

namespace herald::gateway {

unsigned Options::shard_count() const {
  if (threads != 0) return threads;
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

void register_options(config::Schema& s, Options& o) {
  using std::chrono::milliseconds;
  s.add_endpoint("server.listen", o.listen,
                 "Address for HTTP and WebSocket clients; port 0 picks a free port");
  s.add_int("server.threads", o.threads, 0, 256,
            "Shards (threads with their own event loop); 0 means one per core");
  s.add_int("server.max_connections", o.max_connections, 1, 10'000'000,
            "Connections held at once; more are answered 503 and closed");
  s.add_duration("server.shutdown_timeout", o.shutdown_timeout, milliseconds(0),
                 milliseconds(600'000),
                 "On SIGTERM/SIGINT: how long to let open requests finish before exiting");
  s.add_size("http.max_header_bytes", o.http.max_header_bytes, 1024, 1024 * 1024,
             "Largest request line plus headers; larger requests get 431");
  s.add_size("http.max_body_bytes", o.http.max_body_bytes, 0, 1024ull * 1024 * 1024,
             "Largest request body; larger requests get 413");
  s.add_duration("http.idle_timeout", o.http.idle_timeout, milliseconds(100),
                 milliseconds(3'600'000),
                 "Close a connection that sends nothing (or reads nothing) for this long");
}

}  // namespace herald::gateway
