// A connection's hook answers acted on in the order its requests were
// sent. A hook's requests travel over several keep-alive connections to
// the backend at once (backend_client.hpp), so their answers may come back
// in any order; a publication whose hook answered first must still not be
// published before one the connection sent earlier (one connection's
// publications to a room keep their order: docs/protocol.md). Each request
// takes its place in line when it is sent; an answer waits in line until
// every earlier one has been acted on. Costs one deque slot per request in
// flight; an answer already in order runs at once.
//
// Single-threaded: the session's shard. Every place taken must be answered
// (a backend request always ends with an answer or a failure), else the
// line stops there; it lives and dies with its session.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>

namespace herald::gateway::proxy {

class AnswersInOrder {
 public:
  using Place = std::uint64_t;

  // A place in line, taken when the request is sent.
  Place enter() {
    line_.emplace_back();
    return first_ + line_.size() - 1;
  }
  // The answer at `place` has come: `act` runs once every earlier place's
  // has run (at once if none is waiting).
  void arrive(Place place, std::function<void()> act) {
    line_[place - first_] = std::move(act);
    while (!line_.empty() && line_.front()) {
      std::function<void()> next = std::move(*line_.front());
      line_.pop_front();
      ++first_;
      next();  // may enter() or arrive() again: the line is consistent here
    }
  }
  [[nodiscard]] std::size_t waiting() const { return line_.size(); }

 private:
  std::deque<std::optional<std::function<void()>>> line_;
  Place first_ = 0;  // the place of line_.front()
};

}  // namespace herald::gateway::proxy
