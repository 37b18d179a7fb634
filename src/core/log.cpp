#include "core/log.hpp"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <array>
#include <atomic>
#include <memory>

#include "core/json.hpp"

namespace herald::log {
namespace {

struct State {
  std::shared_ptr<spdlog::logger> logger;
  Format format = Format::text;
};

State& state() {
  // Built on first use so that logging before init() still works (text, info).
  static State s = [] {
    State st;
    st.logger = std::make_shared<spdlog::logger>("herald",
                                                 std::make_shared<spdlog::sinks::stderr_sink_mt>());
    st.logger->set_pattern("%Y-%m-%dT%H:%M:%S.%fZ %-5l %v", spdlog::pattern_time_type::utc);
    st.logger->set_level(spdlog::level::info);
    return st;
  }();
  return s;
}

spdlog::level::level_enum to_spdlog(Level level) {
  switch (level) {
    case Level::trace:
      return spdlog::level::trace;
    case Level::debug:
      return spdlog::level::debug;
    case Level::info:
      return spdlog::level::info;
    case Level::warn:
      return spdlog::level::warn;
    case Level::error:
      return spdlog::level::err;
    case Level::off:
      return spdlog::level::off;
  }
  return spdlog::level::info;
}

// Text values are quoted only when they would not read back as one token.
bool needs_quotes(std::string_view v) {
  if (v.empty()) return true;
  for (char c : v) {
    if (c <= ' ' || c == '"' || c == '=' || c == '\\' || c == 0x7f) return true;
  }
  return false;
}

void append_value(std::string& out, Format format, const Field& f) {
  std::visit(
      [&](const auto& v) {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::string_view>) {
          if (format == Format::json || needs_quotes(v)) {
            out += '"';
            json::append_escaped(out, v);
            out += '"';
          } else {
            out += v;
          }
        } else if constexpr (std::is_same_v<V, bool>) {
          out += v ? "true" : "false";
        } else {
          fmt::format_to(std::back_inserter(out), "{}", v);
        }
      },
      f.value());
}

}  // namespace

bool parse_level(std::string_view name, Level& out) {
  static constexpr std::array<std::pair<std::string_view, Level>, 7> kNames{{
      {"trace", Level::trace},
      {"debug", Level::debug},
      {"info", Level::info},
      {"warn", Level::warn},
      {"warning", Level::warn},
      {"error", Level::error},
      {"off", Level::off},
  }};
  for (const auto& [n, l] : kNames) {
    if (n == name) {
      out = l;
      return true;
    }
  }
  return false;
}

std::string_view level_name(Level level) {
  switch (level) {
    case Level::trace:
      return "trace";
    case Level::debug:
      return "debug";
    case Level::info:
      return "info";
    case Level::warn:
      return "warn";
    case Level::error:
      return "error";
    case Level::off:
      return "off";
  }
  return "info";
}

void init(Level level, Format format) {
  State& s = state();
  s.format = format;
  if (format == Format::json) {
    s.logger->set_pattern(R"({"ts":"%Y-%m-%dT%H:%M:%S.%fZ","level":"%l",%v})",
                          spdlog::pattern_time_type::utc);
  } else {
    s.logger->set_pattern("%Y-%m-%dT%H:%M:%S.%fZ %-5l %v", spdlog::pattern_time_type::utc);
  }
  s.logger->set_level(to_spdlog(level));
  // Every line reaches the terminal or the log collector at once; logs are
  // not on any hot path, and a crash must not eat the last lines.
  s.logger->flush_on(spdlog::level::trace);
}

bool enabled(Level level) {
  return state().logger->should_log(to_spdlog(level));
}

std::string format_body(Format format, std::string_view msg, Fields fields) {
  std::string out;
  out.reserve(64 + 24 * fields.size());
  if (format == Format::json) {
    out += R"("msg":")";
    json::append_escaped(out, msg);
    out += '"';
    for (const Field& f : fields) {
      out += ",\"";
      json::append_escaped(out, f.key());
      out += "\":";
      append_value(out, format, f);
    }
  } else {
    out += msg;
    for (const Field& f : fields) {
      out += ' ';
      out += f.key();
      out += '=';
      append_value(out, format, f);
    }
  }
  return out;
}

void write(Level level, std::string_view msg, Fields fields) {
  State& s = state();
  std::string body = format_body(s.format, msg, fields);
  s.logger->log(to_spdlog(level), std::string_view(body));
}

}  // namespace herald::log
