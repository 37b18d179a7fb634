// Response rate limiting, simplified from BIND's RRL: answers per second to
// one client network (IPv4 /24, IPv6 /56; an IPv4-mapped IPv6 address, as a
// dual-stack listener sees IPv4 clients, is its IPv4 /24), so that spoofed queries cannot
// turn the server into a flood aimed at their "source". Over the rate, a
// response is dropped, except every `slip`-th one, which is sent truncated
// (TC set, no records): a real client behind that network retries over TCP,
// where no limit applies (a spoofer cannot complete a handshake).
//
// Buckets live in a fixed table of `slots` entries indexed by a hash of the
// network: a collision makes two networks share a bucket (they are limited
// together), which errs on the side of limiting and never allocates. One
// limiter per shard (single-threaded); with several shards a network's
// queries spread over them, so the rate applies per shard.
//
// Unlike BIND, the bucket is not keyed by the response's name and type: one
// busy network is limited as a whole. Off by default (rate 0).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace herald::dns {

class RateLimiter {
 public:
  enum class Action : std::uint8_t { send, slip, drop };

  // rate: responses per second per network (0: no limit); slip: every
  // slip-th response over the rate is sent truncated (0: drop them all).
  RateLimiter(std::uint32_t rate, std::uint32_t slip, std::size_t slots = 65536);

  // Counts one response to `address` (4 or 16 octets) at second `now`.
  Action check(std::span<const std::uint8_t> address, std::uint32_t now) noexcept;

  bool enabled() const noexcept { return rate_ != 0; }

 private:
  struct Bucket {
    std::uint64_t key = 0;  // the network, folded (0: empty)
    std::uint32_t second = 0;
    std::uint32_t count = 0;  // responses in `second`
    std::uint32_t over = 0;   // responses over the rate in `second`
  };
  std::uint32_t rate_, slip_;
  std::vector<Bucket> table_;
};

// Turns an encoded response into its truncated form in place: the header
// (TC set, counts of answer, authority and additional zero) and the
// question only.
void truncate_to_question(std::vector<std::uint8_t>& response);

}  // namespace herald::dns
