// What a backend hook's answer means, decided in one place for every hook
// (rpc now; connect, subscribe, publish and refresh reuse it), so that a
// backend cannot make two hooks disagree about what "failed" is.
//
// A 2xx answer whose body is one JSON object with exactly one of
//   {"result": {...}}                         the hook's result, relayed
//   {"error": {"code": N, "message": "..."}}  the command's error, relayed
//   {"disconnect": {"code": N, "reason": ".."}} the client is closed
// is an answer. Anything else is a Failure, which the client sees as the
// temporary error 116 backend_unavailable naming its kind (docs/backend.md):
// the backend, not the client, is at fault, and retrying may work.
//
// Backend codes must not collide with Herald's: an error code is relayed
// only in 1000..65535 (Herald's own are below 1000), a disconnect code only
// in 4000..4999 (the range RFC 6455 leaves to applications; Herald's own are
// 3000..3999). A code outside its range is a bad answer. Like Herald's own,
// a backend's disconnect code says whether to reconnect: 4000..4499 yes,
// 4500..4999 no (Centrifugo's convention).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include "gateway/protocol/codes.hpp"

namespace herald::gateway::proxy {

// Why a request got no usable answer. Each is a label of
// herald_proxy_errors_total{kind} and a word in the client's message.
enum class Failure : std::uint8_t {
  timeout,      // no whole answer within proxy.timeout
  unavailable,  // connection refused, reset or closed before the answer
  bad_status,   // an HTTP status other than 2xx
  bad_answer,   // not JSON, not one of the shapes above, or over the size limit
  busy,         // proxy.max_in_flight requests were in flight on this node
};
[[nodiscard]] std::string_view failure_kind(Failure f);  // the metric label

inline constexpr std::uint32_t kMinBackendErrorCode = 1000;
inline constexpr std::uint32_t kMaxBackendErrorCode = 65535;
inline constexpr std::uint32_t kMinBackendDisconnectCode = 4000;
inline constexpr std::uint32_t kMaxBackendDisconnectCode = 4999;

[[nodiscard]] constexpr bool backend_disconnect_reconnects(std::uint16_t code) {
  return code < 4500;
}

struct ResultAnswer {
  std::string json;  // the value of "result", compact JSON (an object)
};
struct ErrorAnswer {
  std::uint16_t code = 0;
  std::string message;

  // The code as the client's error reply carries it.
  [[nodiscard]] protocol::ErrorCode relayed_code() const {
    // Safety: ErrorCode's underlying type is std::uint16_t; a backend's
    // code is 1000..65535, outside Herald's own (read_backend_answer
    // refuses the rest).
    return static_cast<protocol::ErrorCode>(code);
  }
};
struct DisconnectAnswer {
  std::uint16_t code = 0;
  std::string reason;
};
struct FailureAnswer {
  Failure kind = Failure::bad_answer;
  std::string detail;  // what exactly, for the client's message and the log
};

using BackendAnswer = std::variant<ResultAnswer, ErrorAnswer, DisconnectAnswer, FailureAnswer>;

// The client's message for a failure: "<kind>: <hook> backend: <detail>;
// try again" (the text of error 116, which docs/backend.md documents).
[[nodiscard]] std::string describe_failure(std::string_view hook, const FailureAnswer& failure);

// Reads answers; holds a reusable JSON parser, so one lives per shard (not
// thread-safe).
class AnswerClassifier {
 public:
  AnswerClassifier();
  ~AnswerClassifier();
  AnswerClassifier(const AnswerClassifier&) = delete;
  AnswerClassifier& operator=(const AnswerClassifier&) = delete;

  // `status` is the HTTP status, `body` the whole response body.
  [[nodiscard]] BackendAnswer classify(unsigned status, std::string_view body);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace herald::gateway::proxy
