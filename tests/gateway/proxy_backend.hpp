// The application backend the proxy tests talk to (support/backend.mjs, a
// real Node.js HTTP server), started on a kernel-chosen loopback port.
#pragma once

#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "support/http_client.hpp"
#include "ws_common.hpp"

namespace herald::test {

struct Backend {
  Backend() {
    proc = std::make_unique<ChildProcess>(std::vector<std::string>{
        HERALD_NODE, std::string(HERALD_SOURCE_DIR) + "/tests/support/backend.mjs"});
    port = proc->wait_for_port(std::regex(R"(backend listening port=(\d+))"), "the backend");
  }
  // The URL of one hook's route: "rpc", "connect", ...
  [[nodiscard]] std::string url(const std::string& hook) const {
    return "http://127.0.0.1:" + std::to_string(port) + "/" + hook;
  }
  [[nodiscard]] std::string rpc_url() const { return url("rpc"); }
  // {"connections":N,"requests":M}: connections that carried a hook request.
  [[nodiscard]] std::uint64_t stat(const std::string& name) const {
    return json_uint(http_get("127.0.0.1", port, "/stats").body, "/" + name).value_or(0);
  }

  std::unique_ptr<ChildProcess> proc;
  std::uint16_t port = 0;
};

// herald_proxy_errors_total for one hook and kind of failure.
inline double proxy_errors(const Daemon& d, const std::string& hook, const std::string& kind) {
  return metric_value(http_get("127.0.0.1", d.port, "/metrics").body,
                      R"(herald_proxy_errors_total{hook=")" + hook + R"(",kind=")" + kind + "\"}");
}

}  // namespace herald::test
