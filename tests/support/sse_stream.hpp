// An SSE client for tests: the curl command line (curl -N) reading an event
// stream as a child process, its output parsed into events as an
// EventSource would (id, event and data fields; comments counted; the last
// id kept across events that carry none). Curl is not our code, so what it
// reads is what any HTTP client gets.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/process.hpp"

namespace herald::test {

struct SseEvent {
  std::optional<std::string> id;  // set when the event had an id field
  std::string event;              // empty: the default ("message")
  std::string data;               // data lines joined by '\n'
};

class SseStream {
 public:
  // GET http://127.0.0.1:<port><target>, with `headers` ("Name: value");
  // https:// verified against the certificate in `ca_file` when it is given.
  SseStream(std::uint16_t port, const std::string& target, std::vector<std::string> headers = {},
            const std::string& ca_file = "");
  ~SseStream();
  SseStream(const SseStream&) = delete;
  SseStream& operator=(const SseStream&) = delete;

  // The next event, or nullopt when none completes in time or the stream
  // ended first.
  std::optional<SseEvent> next(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // The next event named `event` (empty: a default one), skipping others.
  std::optional<SseEvent> next_named(const std::string& event,
                                     std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // The last id the stream gave (what Last-Event-ID would send), or empty.
  [[nodiscard]] const std::string& last_id() const { return last_id_; }
  // Comment lines (": ...") read so far: heartbeats.
  [[nodiscard]] std::size_t comments() const { return comments_; }
  // Waits until the server ends the response (curl exits); false on timeout.
  bool wait_ended(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // Cuts the connection from the client's side (curl is killed).
  void cut();
  [[nodiscard]] std::string output() const { return curl_->output(); }

 private:
  // Parses complete events after the cursor; true if one was produced.
  bool parse_one(SseEvent& out);

  std::unique_ptr<ChildProcess> curl_;
  std::size_t cursor_ = 0;
  std::string last_id_;
  std::size_t comments_ = 0;
};

}  // namespace herald::test
