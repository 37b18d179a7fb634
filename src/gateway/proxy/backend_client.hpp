// The HTTP/1.1 client that posts a hook's JSON to the application backend.
// One per hook per shard, driven by the shard's io_context: a request never
// blocks the shard (connect, write and read are Boost.Beast async
// operations) and its answer comes back on the shard that asked, so the
// session that asked needs no lock to use it.
//
// Connections are kept alive and reused: a shard holds the connections its
// finished requests left open, and a request takes one before opening a
// new one, so a steady stream of commands costs one TCP handshake per shard
// rather than one per command. Idle connections are bounded by
// proxy.max_in_flight (no request, no connection beyond those in flight).
// A backend may close an idle connection at any time (Node's default
// keep-alive timeout is 5 s): a request on a reused connection that is
// closed before a byte of the answer arrives is sent once more on a new
// one, as browsers do; the backend never saw it.
//
// Every request has one deadline, proxy.timeout, for connect, write and
// read together (beast::tcp_stream's expiry), and takes a slot of the node's
// proxy.max_in_flight for its whole life; without a slot it is refused at
// once (busy).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gateway/proxy/backend_answer.hpp"
#include "gateway/proxy/hook.hpp"
#include "gateway/proxy/in_flight_limit.hpp"

namespace herald::gateway::proxy {

class BackendClient {
 public:
  // Runs on the client's shard, exactly once per post().
  using Done = std::function<void(BackendAnswer)>;

  // `max_answer_bytes`: a larger answer body is a bad answer.
  BackendClient(boost::asio::io_context& ctx, const Hook& hook, InFlightLimit& limit,
                std::uint64_t max_answer_bytes);
  ~BackendClient();
  BackendClient(const BackendClient&) = delete;
  BackendClient& operator=(const BackendClient&) = delete;

  // POSTs `json` to the hook's URL; `done` gets the classified answer. A
  // request refused as busy is answered before post() returns; every other
  // answer later, from the io_context.
  void post(std::string json, Done done);

  // Closes the idle connections and keeps no more: called before the
  // io_context is destroyed (a socket must not outlive its io_context).
  void stop();

  // Connections open and waiting for a request (tests, metrics).
  [[nodiscard]] std::size_t idle_connections() const { return idle_.size(); }

 private:
  struct Exchange;  // one request from post() to done (backend_client.cpp)

  boost::asio::io_context& ctx_;
  const Hook& hook_;
  InFlightLimit& limit_;
  const std::uint64_t max_answer_bytes_;
  AnswerClassifier classifier_;
  std::vector<std::unique_ptr<boost::beast::tcp_stream>> idle_;
  bool stopped_ = false;
};

}  // namespace herald::gateway::proxy
