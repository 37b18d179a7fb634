// Structured logging: one line per event, a fixed message and key=value fields.
//
//   log::info("listening", {{"addr", ep}, {"threads", 2}});
//   text: 2026-11-29T21:03:01.123456Z info  listening addr=127.0.0.1:8080 threads=2
//   json: {"ts":"2026-11-29T21:03:01.123456Z","level":"info","msg":"listening",...}
//
// spdlog does timestamps, levels, the sink and its locking; this file only
// formats fields. Fields are formatted only when the level is enabled, so a
// disabled debug line costs one branch.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

namespace herald::log {

enum class Level : std::uint8_t { trace, debug, info, warn, error, off };
enum class Format : std::uint8_t { text, json };

// Parses "trace" … "off" (and "warning"); returns false on anything else.
[[nodiscard]] bool parse_level(std::string_view name, Level& out);
[[nodiscard]] std::string_view level_name(Level level);

// Replaces the process-wide logger. Safe to call before any thread starts;
// not meant to be called while other threads log.
void init(Level level, Format format);
[[nodiscard]] bool enabled(Level level);

// One key=value pair. Holds views: a Field must not outlive the arguments of
// the log call it is built in (it never does when written inline).
class Field {
 public:
  Field(std::string_view key, std::string_view value) : key_(key), value_(value) {}
  Field(std::string_view key, const char* value) : key_(key), value_(std::string_view(value)) {}
  Field(std::string_view key, const std::string& value)
      : key_(key), value_(std::string_view(value)) {}
  Field(std::string_view key, bool value) : key_(key), value_(value) {}
  Field(std::string_view key, double value) : key_(key), value_(value) {}
  template <class T>
  requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) Field(std::string_view key, T value)
      : key_(key) {
    if constexpr (std::is_signed_v<T>) {
      value_ = static_cast<std::int64_t>(value);
    } else {
      value_ = static_cast<std::uint64_t>(value);
    }
  }

  [[nodiscard]] std::string_view key() const { return key_; }
  [[nodiscard]] const auto& value() const { return value_; }

 private:
  std::string_view key_;
  std::variant<std::string_view, bool, std::int64_t, std::uint64_t, double> value_;
};

using Fields = std::initializer_list<Field>;

void write(Level level, std::string_view msg, Fields fields);

// Formats one event's body (everything after timestamp and level) in the
// given format. Exposed for tests.
[[nodiscard]] std::string format_body(Format format, std::string_view msg, Fields fields);

inline void trace(std::string_view msg, Fields f = {}) {
  if (enabled(Level::trace)) write(Level::trace, msg, f);
}
inline void debug(std::string_view msg, Fields f = {}) {
  if (enabled(Level::debug)) write(Level::debug, msg, f);
}
inline void info(std::string_view msg, Fields f = {}) {
  if (enabled(Level::info)) write(Level::info, msg, f);
}
inline void warn(std::string_view msg, Fields f = {}) {
  if (enabled(Level::warn)) write(Level::warn, msg, f);
}
inline void error(std::string_view msg, Fields f = {}) {
  if (enabled(Level::error)) write(Level::error, msg, f);
}

}  // namespace herald::log
