// Classification with simdjson's DOM parser (as the command parser): the
// body is validated whole, then the three shapes are read by name.
#include "gateway/proxy/backend_answer.hpp"

#include <simdjson.h>

namespace herald::gateway::proxy {
namespace dom = simdjson::dom;

std::string_view failure_kind(Failure f) {
  switch (f) {
    case Failure::timeout:
      return "timeout";
    case Failure::unavailable:
      return "unavailable";
    case Failure::bad_status:
      return "bad_status";
    case Failure::bad_answer:
      return "bad_answer";
    case Failure::busy:
      return "busy";
  }
  return "bad_answer";
}

std::string describe_failure(std::string_view hook, const FailureAnswer& failure) {
  std::string message(failure_kind(failure.kind));
  message += ": ";
  message += hook;
  message += " backend: ";
  message += failure.detail;
  message += "; try again";
  return message;
}

struct AnswerClassifier::Impl {
  dom::parser parser;
};

AnswerClassifier::AnswerClassifier() : impl_(std::make_unique<Impl>()) {}
AnswerClassifier::~AnswerClassifier() = default;

namespace {

FailureAnswer bad(std::string detail) {
  return FailureAnswer{Failure::bad_answer, std::move(detail)};
}

// Reads {"code": N, "<text_field>": "..."} with N in [min, max].
bool read_code(dom::object obj, std::string_view text_field, std::uint32_t min, std::uint32_t max,
               std::uint16_t& code, std::string& text) {
  std::uint64_t n = 0;
  if (obj["code"].get(n) != simdjson::SUCCESS || n < min || n > max) return false;
  std::string_view t;
  auto e = obj[text_field];
  if (e.error() == simdjson::SUCCESS && e.get(t) != simdjson::SUCCESS) return false;
  // Safety: n <= max <= 65535, checked above.
  code = static_cast<std::uint16_t>(n);
  text.assign(t);
  return true;
}

}  // namespace

BackendAnswer AnswerClassifier::classify(unsigned status, std::string_view body) {
  if (status < 200 || status > 299) {
    return FailureAnswer{Failure::bad_status, "HTTP " + std::to_string(status)};
  }
  dom::element root;
  if (auto ec = impl_->parser.parse(body.data(), body.size()).get(root); ec) {
    return bad(std::string("not JSON: ") + simdjson::error_message(ec));
  }
  dom::object obj;
  if (root.get(obj) != simdjson::SUCCESS) return bad("not a JSON object");
  if (obj.size() != 1) {
    return bad("expected exactly one of \"result\", \"error\" or \"disconnect\"");
  }
  const auto field = *obj.begin();
  dom::object value;
  if (field.value.get(value) != simdjson::SUCCESS) {
    return bad("\"" + std::string(field.key) + "\" is not an object");
  }
  if (field.key == "result") return ResultAnswer{simdjson::minify(value)};
  if (field.key == "error") {
    ErrorAnswer a;
    if (!read_code(value, "message", kMinBackendErrorCode, kMaxBackendErrorCode, a.code,
                   a.message)) {
      return bad("error: expected {\"code\": 1000..65535, \"message\": \"...\"}");
    }
    return a;
  }
  if (field.key == "disconnect") {
    DisconnectAnswer a;
    if (!read_code(value, "reason", kMinBackendDisconnectCode, kMaxBackendDisconnectCode, a.code,
                   a.reason)) {
      return bad("disconnect: expected {\"code\": 4000..4999, \"reason\": \"...\"}");
    }
    // A close frame's reason is at most 123 bytes (RFC 6455 5.5.1).
    if (a.reason.size() > 123) return bad("disconnect: reason over 123 bytes");
    return a;
  }
  return bad("unknown key \"" + std::string(field.key) + "\"");
}

}  // namespace herald::gateway::proxy
