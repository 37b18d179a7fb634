#include "dns/server/server.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <ctime>
#include <system_error>
#include <thread>

#include "dns/rrl.hpp"

namespace herald::dns {

namespace asio = boost::asio;
using asio::ip::tcp;
using asio::ip::udp;
using ReusePort = asio::detail::socket_option::boolean<SOL_SOCKET, SO_REUSEPORT>;

namespace {
// The largest UDP query read; a longer datagram is dropped (MSG_TRUNC).
// Real queries are a few hundred octets at most, even with EDNS options.
constexpr std::size_t kMaxUdpQuery = 4096;
}  // namespace

struct Server::Shard {
  Shard(Server& s, const ServerOptions& so)
      : server(s),
        io(1),
        udp_socket(io),
        acceptor(io),
        responder(so.responder),
        batch(std::max<std::size_t>(1, so.udp_batch)),
        rx(batch),
        tx(batch),
        peers(batch),
        in_iov(batch),
        out_iov(batch),
        in_msgs(batch),
        out_msgs(batch),
        rrl(so.rrl_rate, so.rrl_slip) {
    for (auto& b : rx) b.resize(kMaxUdpQuery);
    for (auto& b : tx) b.reserve(so.responder.max_udp_payload);
  }

  Server& server;
  asio::io_context io;
  udp::socket udp_socket;
  tcp::acceptor acceptor;
  Responder responder;  // shared by this shard's UDP loop and TCP connections (one thread)
  // recvmmsg/sendmmsg state, one slot per datagram of a batch, reused.
  std::size_t batch;
  std::vector<std::vector<std::uint8_t>> rx, tx;
  std::vector<sockaddr_storage> peers;
  std::vector<iovec> in_iov, out_iov;
  std::vector<mmsghdr> in_msgs, out_msgs;
  unsigned rounds = 0;
  ShardStats stats;
  metrics::Histogram* latency = nullptr;
  RateLimiter rrl;  // UDP only: over TCP the client's address is real

  // Answers one query, timing it when a histogram is set.
  Outcome answer(const ZoneDb& db, std::span<const std::uint8_t> query, Transport t,
                 std::vector<std::uint8_t>& out, const Client& client, bool may_transfer = false) {
    if (latency == nullptr) return responder.respond(db, query, t, out, may_transfer, client);
    auto start = std::chrono::steady_clock::now();
    Outcome o = responder.respond(db, query, t, out, may_transfer, client);
    latency->observe(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return o;
  }
  std::thread thread;

  std::shared_ptr<const ZoneDb> zones() const { return server.zones_.get(); }
  bool transfer_allowed(const asio::ip::address& a) const {
    return server.opt_.transfer_acl.allows(a);
  }

  void count(const Outcome& o) {
    if (o.drop) return ShardStats::bump(stats.dropped);
    ShardStats::bump(stats.by_type[ShardStats::type_slot(o.qtype)]);
    ShardStats::bump(stats.by_rcode[ShardStats::rcode_slot(o.rcode)]);
    if (o.truncated) ShardStats::bump(stats.truncated);
    if (o.cookie != CookieState::none) {
      ShardStats::bump(stats.cookies[static_cast<std::size_t>(o.cookie) - 1]);
    }
    const signing::SigningCounts& c = o.signing;
    stats.add(SigningStat::hits, c.hits);
    stats.add(SigningStat::misses, c.misses);
    stats.add(SigningStat::stale, c.stale);
    stats.add(SigningStat::evictions, c.evictions);
    stats.add(SigningStat::signatures, c.signatures);
    stats.add(SigningStat::failures, c.failures);
  }

  // The client's address octets (4 or 16), read in place from the
  // sockaddr recvmmsg filled.
  static Client client_of(const sockaddr_storage& ss, std::uint32_t now) {
    if (ss.ss_family == AF_INET) {
      // Safety: ss_family says this storage holds a sockaddr_in; its address
      // is read as the octets it is.
      const auto* in = reinterpret_cast<const sockaddr_in*>(&ss);
      return {{reinterpret_cast<const std::uint8_t*>(&in->sin_addr), 4}, now};
    }
    if (ss.ss_family == AF_INET6) {
      // Safety: ss_family says this storage holds a sockaddr_in6; its
      // address is read as the octets it is.
      const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&ss);
      return {{reinterpret_cast<const std::uint8_t*>(&in6->sin6_addr), 16}, now};
    }
    return {{}, now};
  }

  void udp_wait() {
    udp_socket.async_wait(udp::socket::wait_read, [this](const boost::system::error_code& ec) {
      if (ec) return;  // closed by stop()
      udp_drain();
      udp_wait();
    });
  }

  // One wake-up: up to udp_batch datagrams in by recvmmsg, answered, and the
  // replies out by one sendmmsg. Syscalls were 70% of the server's CPU with
  // one recvfrom and one sendto per query (perf, D1 inputs); batching them
  // is the measured lever (docs/benchmarks.md, D1).
  void udp_drain() {
    std::shared_ptr<const ZoneDb> db = server.zones_.get();
    const int fd = udp_socket.native_handle();
    for (;;) {
      for (std::size_t i = 0; i < batch; ++i) {
        in_iov[i] = {rx[i].data(), rx[i].size()};
        in_msgs[i] = {};
        in_msgs[i].msg_hdr.msg_name = &peers[i];
        in_msgs[i].msg_hdr.msg_namelen = sizeof(peers[i]);
        in_msgs[i].msg_hdr.msg_iov = &in_iov[i];
        in_msgs[i].msg_hdr.msg_iovlen = 1;
      }
      int got = ::recvmmsg(fd, in_msgs.data(), static_cast<unsigned>(batch), MSG_DONTWAIT, nullptr);
      if (got <= 0) return;  // EAGAIN: drained; other errors: wait for the next wake-up
      // One clock read per batch: cookies count seconds.
      const auto now = static_cast<std::uint32_t>(std::time(nullptr));
      std::size_t out = 0;
      for (int i = 0; i < got; ++i) {
        const mmsghdr& m = in_msgs[static_cast<std::size_t>(i)];
        if ((m.msg_hdr.msg_flags & MSG_TRUNC) != 0) {
          // Larger than kMaxUdpQuery: not a query a client sends over UDP.
          ShardStats::bump(stats.dropped);
          continue;
        }
        std::vector<std::uint8_t>& reply = tx[out];
        Outcome o = answer(*db, {rx[static_cast<std::size_t>(i)].data(), m.msg_len}, Transport::udp,
                           reply, client_of(peers[static_cast<std::size_t>(i)], now));
        count(o);
        if (o.drop) continue;
        if (rrl.enabled()) {
          Client c = client_of(peers[static_cast<std::size_t>(i)], now);
          RateLimiter::Action a = rrl.check(c.address, now);
          if (a == RateLimiter::Action::drop) {
            ShardStats::bump(stats.rrl_dropped);
            continue;
          }
          if (a == RateLimiter::Action::slip) {
            truncate_to_question(reply);
            ShardStats::bump(stats.rrl_slipped);
          }
        }
        out_iov[out] = {reply.data(), reply.size()};
        out_msgs[out] = {};
        out_msgs[out].msg_hdr.msg_name = &peers[static_cast<std::size_t>(i)];
        out_msgs[out].msg_hdr.msg_namelen = m.msg_hdr.msg_namelen;
        out_msgs[out].msg_hdr.msg_iov = &out_iov[out];
        out_msgs[out].msg_hdr.msg_iovlen = 1;
        ++out;
      }
      std::size_t sent = 0;
      while (sent < out) {
        int n =
            ::sendmmsg(fd, out_msgs.data() + sent, static_cast<unsigned>(out - sent), MSG_DONTWAIT);
        if (n <= 0) break;  // socket buffer full: the rest is dropped, the clients retry
        sent += static_cast<std::size_t>(n);
      }
      for (std::size_t k = sent; k < out; ++k) ShardStats::bump(stats.dropped);
      if (static_cast<std::size_t>(got) < batch) return;  // drained
      // A full batch: go round again, but yield to this shard's other
      // handlers (TCP) every few rounds so one busy socket cannot starve them.
      if (++rounds % 4 == 0) {
        rounds = 0;
        return;
      }
    }
  }

  void accept() {
    acceptor.async_accept([this](const boost::system::error_code& ec, tcp::socket s) {
      if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
      if (!ec) admit(std::move(s));
      accept();
    });
  }

  void admit(tcp::socket s);
};

namespace {

// One TCP client. Lives while an operation of it is pending (shared_ptr
// captured by each handler); every handler runs on the shard's thread.
class TcpConnection : public std::enable_shared_from_this<TcpConnection> {
 public:
  TcpConnection(Server::Shard& shard, tcp::socket s, std::atomic<std::size_t>& open,
                const ServerOptions& opt)
      : shard_(shard),
        socket_(std::move(s)),
        timer_(shard.io),
        open_(open),
        idle_(opt.tcp_idle_timeout),
        end_of_life_(std::chrono::steady_clock::now() + opt.tcp_lifetime),
        queries_left_(opt.tcp_max_queries) {}
  ~TcpConnection() { open_.fetch_sub(1, std::memory_order_relaxed); }

  void start() { read_length(); }

 private:
  // Waits for the next query at most the idle timeout, and never past the
  // connection's end of life; false if that has come (closed, counted).
  bool arm_idle() {
    const auto now = std::chrono::steady_clock::now();
    if (queries_left_ == 0 || now >= end_of_life_) {
      ShardStats::bump(shard_.stats.tcp_spent);
      close();
      return false;
    }
    timer_.expires_after(std::min<std::chrono::steady_clock::duration>(idle_, end_of_life_ - now));
    timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (ec) return;
      // Silent too long (RFC 7766 §6.2.3), or too old.
      if (std::chrono::steady_clock::now() >= self->end_of_life_)
        ShardStats::bump(self->shard_.stats.tcp_spent);
      self->close();
    });
    return true;
  }

  void close() {
    boost::system::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
    timer_.cancel();
  }

  void read_length() {
    if (!arm_idle()) return;
    asio::async_read(socket_, asio::buffer(len_),
                     [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
                       if (ec) return self->close();
                       std::size_t n = static_cast<std::size_t>(self->len_[0] << 8 | self->len_[1]);
                       self->query_.resize(n);
                       self->read_message();
                     });
  }

  void read_message() {
    asio::async_read(socket_, asio::buffer(query_),
                     [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
                       if (ec) return self->close();
                       self->answer();
                     });
  }

  void answer() {
    std::shared_ptr<const ZoneDb> db = shard_.zones();
    boost::system::error_code peer_ec;
    auto peer = socket_.remote_endpoint(peer_ec);
    bool may_transfer = !peer_ec && shard_.transfer_allowed(peer.address());
    std::array<std::uint8_t, 16> ip{};
    std::size_t ip_len = 0;
    if (!peer_ec && peer.address().is_v4()) {
      auto b = peer.address().to_v4().to_bytes();
      std::copy(b.begin(), b.end(), ip.begin());
      ip_len = 4;
    } else if (!peer_ec) {
      auto b = peer.address().to_v6().to_bytes();
      std::copy(b.begin(), b.end(), ip.begin());
      ip_len = 16;
    }
    Client client{{ip.data(), ip_len}, static_cast<std::uint32_t>(std::time(nullptr))};
    Outcome o = shard_.answer(*db, query_, Transport::tcp, reply_, client, may_transfer);
    shard_.count(o);
    --queries_left_;             // at least 1 here: read_length checked it
    if (o.drop) return close();  // nothing sensible to say on this stream
    if (o.framed) {
      // A zone transfer: every message is framed already; `db` is not
      // needed past this point (the octets are copies).
      asio::async_write(
          socket_, asio::buffer(reply_),
          [self = shared_from_this()](const boost::system::error_code& e, std::size_t) {
            if (e) return self->close();
            self->read_length();
          });
      return;
    }
    prefix_[0] = static_cast<std::uint8_t>(reply_.size() >> 8);
    prefix_[1] = static_cast<std::uint8_t>(reply_.size());
    std::array<asio::const_buffer, 2> bufs = {asio::buffer(prefix_), asio::buffer(reply_)};
    asio::async_write(
        socket_, bufs,
        [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
          if (ec) return self->close();
          self->read_length();
        });
  }

  Server::Shard& shard_;
  tcp::socket socket_;
  asio::steady_timer timer_;
  std::atomic<std::size_t>& open_;
  std::chrono::milliseconds idle_;
  std::chrono::steady_clock::time_point end_of_life_;
  std::size_t queries_left_;
  std::array<std::uint8_t, 2> len_{};
  std::array<std::uint8_t, 2> prefix_{};
  std::vector<std::uint8_t> query_, reply_;  // per connection: a reply outlives the next query
};

}  // namespace

void Server::Shard::admit(tcp::socket s) {
  std::size_t now = server.tcp_open_.fetch_add(1, std::memory_order_relaxed);
  if (now >= server.opt_.max_tcp_connections) {
    server.tcp_open_.fetch_sub(1, std::memory_order_relaxed);
    ShardStats::bump(stats.tcp_refused);
    boost::system::error_code ignored;
    s.close(ignored);
    return;
  }
  std::make_shared<TcpConnection>(*this, std::move(s), server.tcp_open_, server.opt_)->start();
}

Server::Server(ServerOptions options, ZoneStore& zones) : opt_(std::move(options)), zones_(zones) {
  if (opt_.threads == 0) opt_.threads = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 0; i < opt_.threads; ++i) {
    shards_.push_back(std::make_unique<Shard>(*this, opt_));
  }
}

Server::~Server() {
  stop();
}

void Server::start() {
  boost::system::error_code ec;
  auto address = asio::ip::make_address(opt_.host, ec);
  if (ec) throw std::system_error(ec, "dns: cannot listen on '" + opt_.host + "' (not an address)");
  // With port 0 the first UDP socket gets a port from the kernel and every
  // other socket joins it; the TCP port of that number may be taken (by a
  // connection's ephemeral port): then everything is closed and a new port
  // is tried, a bounded number of times.
  const int attempts = opt_.port == 0 ? 16 : 1;
  for (int attempt = 1;; ++attempt) {
    std::uint16_t port = opt_.port;
    const char* step = bind_all(address, port, ec);
    if (step == nullptr) {
      port_ = port;
      break;
    }
    for (auto& sh : shards_) {
      boost::system::error_code ignored;
      sh->udp_socket.close(ignored);
      sh->acceptor.close(ignored);
    }
    if (ec != asio::error::address_in_use || attempt >= attempts) {
      throw std::system_error(ec, "dns: cannot listen on " + opt_.host + ":" +
                                      std::to_string(port) + " (" + step + ")");
    }
  }
  for (auto& sh : shards_) {
    Shard* s = sh.get();
    s->udp_wait();
    s->accept();
    s->thread = std::thread([s] { s->io.run(); });
  }
  started_ = true;
}

const char* Server::bind_all(const asio::ip::address& address, std::uint16_t& port,
                             boost::system::error_code& ec) {
  for (auto& sh : shards_) {
    udp::endpoint ue(address, port);
    sh->udp_socket.open(ue.protocol(), ec);
    if (ec) return "udp open";
    sh->udp_socket.set_option(ReusePort(true), ec);
    if (ec) return "udp SO_REUSEPORT";
    sh->udp_socket.bind(ue, ec);
    if (ec) return "udp bind";
    port = sh->udp_socket.local_endpoint().port();
    sh->udp_socket.non_blocking(true, ec);
    if (ec) return "udp non_blocking";
    // Bursts queue in the kernel while a batch is answered (the kernel caps
    // the size at net.core.rmem_max / wmem_max; a smaller one is no failure).
    boost::system::error_code ignored;
    sh->udp_socket.set_option(asio::socket_base::receive_buffer_size(opt_.udp_socket_buffer),
                              ignored);
    sh->udp_socket.set_option(asio::socket_base::send_buffer_size(opt_.udp_socket_buffer), ignored);
    tcp::endpoint te(address, port);
    sh->acceptor.open(te.protocol(), ec);
    if (ec) return "tcp open";
    sh->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
    if (ec) return "tcp SO_REUSEADDR";
    sh->acceptor.set_option(ReusePort(true), ec);
    if (ec) return "tcp SO_REUSEPORT";
    sh->acceptor.bind(te, ec);
    if (ec) return "tcp bind";
    sh->acceptor.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) return "tcp listen";
  }
  return nullptr;
}

void Server::stop() {
  if (!started_) return;
  started_ = false;
  for (auto& sh : shards_) {
    Shard* s = sh.get();
    asio::post(s->io, [s] {
      boost::system::error_code ignored;
      s->udp_socket.close(ignored);
      s->acceptor.close(ignored);
      s->io.stop();  // open TCP connections end with their io_context
    });
  }
  for (auto& sh : shards_) {
    if (sh->thread.joinable()) sh->thread.join();
  }
}

void Server::set_latency_histogram(unsigned shard, metrics::Histogram* h) {
  shards_.at(shard)->latency = h;
}

std::uint16_t Server::port() const noexcept {
  return port_;
}
unsigned Server::shard_count() const noexcept {
  return static_cast<unsigned>(shards_.size());
}
std::size_t Server::tcp_connections() const noexcept {
  return tcp_open_.load(std::memory_order_relaxed);
}

namespace {
template <class F>
std::uint64_t sum(const std::vector<std::unique_ptr<Server::Shard>>& shards, F field) {
  std::uint64_t total = 0;
  for (const auto& s : shards) total += field(s->stats).load(std::memory_order_relaxed);
  return total;
}
}  // namespace

std::uint64_t Server::queries_of_type(std::size_t slot) const noexcept {
  return sum(
      shards_, [slot](const ShardStats& s) -> const auto& { return s.by_type[slot]; });
}
std::uint64_t Server::responses_with_rcode(std::size_t slot) const noexcept {
  return sum(
      shards_, [slot](const ShardStats& s) -> const auto& { return s.by_rcode[slot]; });
}
std::uint64_t Server::dropped() const noexcept {
  return sum(
      shards_, [](const ShardStats& s) -> const auto& { return s.dropped; });
}
std::uint64_t Server::truncated() const noexcept {
  return sum(
      shards_, [](const ShardStats& s) -> const auto& { return s.truncated; });
}
std::uint64_t Server::cookies(CookieState state) const noexcept {
  if (state == CookieState::none) return 0;
  std::size_t slot = static_cast<std::size_t>(state) - 1;
  return sum(
      shards_, [slot](const ShardStats& s) -> const auto& { return s.cookies[slot]; });
}
std::uint64_t Server::rrl_dropped() const noexcept {
  return sum(
      shards_, [](const ShardStats& s) -> const auto& { return s.rrl_dropped; });
}
std::uint64_t Server::rrl_slipped() const noexcept {
  return sum(
      shards_, [](const ShardStats& s) -> const auto& { return s.rrl_slipped; });
}
std::uint64_t Server::tcp_refused() const noexcept {
  return sum(
      shards_, [](const ShardStats& s) -> const auto& { return s.tcp_refused; });
}
std::uint64_t Server::signing(SigningStat stat) const noexcept {
  const auto slot = static_cast<std::size_t>(stat);
  return sum(
      shards_, [slot](const ShardStats& s) -> const auto& { return s.signing[slot]; });
}
std::uint64_t Server::tcp_spent() const noexcept {
  return sum(
      shards_, [](const ShardStats& s) -> const auto& { return s.tcp_spent; });
}

}  // namespace herald::dns
