// A real WebSocket client for tests (Boost.Beast), with bounded waits. It
// splits each received text frame into its newline-separated messages and
// hands them out one by one, so tests read messages, not frames.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace herald::test {

struct CloseInfo {
  std::uint16_t code = 0;
  std::string reason;
};

class WsClient {
 public:
  using Headers = std::vector<std::pair<std::string, std::string>>;
  // Connects and upgrades, sending `origin` as the Origin header when not
  // empty (as a browser page would) and `headers` as they are (a session
  // cookie, say); throws std::runtime_error naming the failure, with the
  // server's status and body when it refused the upgrade.
  WsClient(const std::string& host, std::uint16_t port, const std::string& path = "/ws",
           const std::string& origin = "", const Headers& headers = {});
  ~WsClient();
  WsClient(const WsClient&) = delete;
  WsClient& operator=(const WsClient&) = delete;

  void send(const std::string& text);
  // The next message (one line of a frame), or nullopt if none arrives in
  // time or the connection closes first (then closed() says why). Between
  // calls nothing is read, like a client that hangs: pings go unanswered
  // and frames pile up in the kernel.
  std::optional<std::string> next(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  // Frames received so far (a frame may carry several messages).
  [[nodiscard]] std::size_t frames() const { return frames_; }
  [[nodiscard]] const std::optional<CloseInfo>& closed() const { return closed_; }
  // Waits until the server closes the connection; the close code, or
  // nullopt on timeout.
  std::optional<CloseInfo> wait_closed(std::chrono::milliseconds timeout = std::chrono::seconds(5));

 private:
  bool read_frame(std::chrono::milliseconds timeout);
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::deque<std::string> pending_;
  std::optional<CloseInfo> closed_;
  std::size_t frames_ = 0;
};

// Sends `cmd` and returns the next message that carries "id":<id>, skipping
// pushes (which are kept in `skipped` if given).
std::optional<std::string> request(WsClient& c, std::uint32_t id, const std::string& cmd,
                                   std::deque<std::string>* skipped = nullptr,
                                   std::chrono::milliseconds timeout = std::chrono::seconds(5));

}  // namespace herald::test
