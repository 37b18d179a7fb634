#include "support/sse_stream.hpp"

#include <csignal>
#include <regex>
#include <thread>

namespace herald::test {

SseStream::SseStream(std::uint16_t port, const std::string& target,
                     std::vector<std::string> headers, const std::string& ca_file) {
  std::vector<std::string> argv{CURL_PATH, "--silent", "--no-buffer"};
  for (std::string& h : headers) {
    argv.emplace_back("--header");
    argv.push_back(std::move(h));
  }
  if (!ca_file.empty()) argv.insert(argv.end(), {"--cacert", ca_file});
  argv.push_back((ca_file.empty() ? "http://127.0.0.1:" : "https://127.0.0.1:") +
                 std::to_string(port) + target);
  curl_ = std::make_unique<ChildProcess>(std::move(argv));
}

SseStream::~SseStream() = default;

bool SseStream::parse_one(SseEvent& out) {
  const std::string text = curl_->output();
  for (;;) {
    const std::size_t end = text.find("\n\n", cursor_);
    if (end == std::string::npos) return false;
    SseEvent event;
    bool any_field = false;
    std::size_t pos = cursor_;
    cursor_ = end + 2;
    while (pos <= end) {
      const std::size_t nl = text.find('\n', pos);
      const std::string line = text.substr(pos, nl - pos);
      pos = nl + 1;
      if (line.empty()) continue;
      if (line.front() == ':') {
        ++comments_;
        continue;
      }
      const std::size_t colon = line.find(':');
      const std::string name = line.substr(0, colon);
      std::string value = colon == std::string::npos ? "" : line.substr(colon + 1);
      if (!value.empty() && value.front() == ' ') value.erase(0, 1);
      any_field = true;
      if (name == "id") {
        event.id = value;
        last_id_ = value;
      } else if (name == "event") {
        event.event = value;
      } else if (name == "data") {
        if (!event.data.empty()) event.data += '\n';
        event.data += value;
      }
    }
    if (any_field) {
      out = std::move(event);
      return true;
    }
  }
}

std::optional<SseEvent> SseStream::next(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    SseEvent event;
    if (parse_one(event)) return event;
    if (curl_->wait_exit(std::chrono::milliseconds(0))) {
      // Exited: wait for the end of its output (a pattern that never
      // matches returns at end of file), then read what is left.
      curl_->wait_for_line(std::regex("a^"), std::chrono::seconds(10));
      if (parse_one(event)) return event;
      return std::nullopt;
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::optional<SseEvent> SseStream::next_named(const std::string& name,
                                              std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    auto event = next(left);
    if (!event || event->event == name) return event;
  }
}

bool SseStream::wait_ended(std::chrono::milliseconds timeout) {
  return curl_->wait_exit(timeout).has_value();
}

void SseStream::cut() {
  curl_->signal(SIGKILL);
  curl_->wait_exit(std::chrono::seconds(10));
}

}  // namespace herald::test
