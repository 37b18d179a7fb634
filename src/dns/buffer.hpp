// Wire buffers: a read cursor over a received message and an accumulating
// write buffer for an answer, both after NSD's buffer.h. Every bounds check of
// the codec lives here: decoders ask `has(n)` once per field, and the
// accessors assert it in debug builds.
//
//   0          position                    limit            capacity
//   |----------|---------------------------|----------------|
//   consumed    remaining() = limit - position   (writer only: may grow
//                                                 up to capacity)
//
// Integers on the wire are big-endian (RFC 1035 §2.3.2).
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace herald::dns {

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> data) noexcept
      : data_(data.data()), limit_(data.size()), size_(data.size()) {}

  std::size_t position() const noexcept { return pos_; }
  std::size_t limit() const noexcept { return limit_; }
  // The whole message, unaffected by narrow(): compression pointers may
  // reach anywhere before the name that holds them.
  std::size_t size() const noexcept { return size_; }
  std::size_t remaining() const noexcept { return limit_ - pos_; }
  bool has(std::size_t n) const noexcept { return n <= limit_ - pos_; }
  const std::uint8_t* data() const noexcept { return data_; }
  const std::uint8_t* here() const noexcept { return data_ + pos_; }

  // Moves the cursor; `p` must not pass the limit.
  void seek(std::size_t p) noexcept {
    assert(p <= limit_);
    pos_ = p;
  }
  void skip(std::size_t n) noexcept {
    assert(has(n));
    pos_ += n;
  }
  // Narrows the readable window to the next `n` octets (RDATA of one record);
  // returns the old limit for restore(). Requires has(n).
  std::size_t narrow(std::size_t n) noexcept {
    assert(has(n));
    std::size_t old = limit_;
    limit_ = pos_ + n;
    return old;
  }
  void restore(std::size_t old_limit) noexcept { limit_ = old_limit; }

  // The unchecked readers: callers have checked has(n) for the field.
  std::uint8_t u8() noexcept {
    assert(has(1));
    return data_[pos_++];
  }
  std::uint16_t u16() noexcept {
    assert(has(2));
    std::uint16_t v = static_cast<std::uint16_t>(data_[pos_] << 8 | data_[pos_ + 1]);
    pos_ += 2;
    return v;
  }
  std::uint32_t u32() noexcept {
    assert(has(4));
    std::uint32_t v = static_cast<std::uint32_t>(data_[pos_]) << 24 |
                      static_cast<std::uint32_t>(data_[pos_ + 1]) << 16 |
                      static_cast<std::uint32_t>(data_[pos_ + 2]) << 8 | data_[pos_ + 3];
    pos_ += 4;
    return v;
  }
  std::span<const std::uint8_t> bytes(std::size_t n) noexcept {
    assert(has(n));
    std::span<const std::uint8_t> s(data_ + pos_, n);
    pos_ += n;
    return s;
  }

 private:
  const std::uint8_t* data_;
  std::size_t pos_ = 0;
  std::size_t limit_;
  std::size_t size_;
};

// One accumulating buffer per message (dns_erlang's lesson: no per-record
// intermediate buffers). `limit` caps the size an encoder will produce (UDP
// payload size); writes past it set `overflow` instead of growing, so an
// encoder can write optimistically and roll back to a mark.
class Writer {
 public:
  explicit Writer(std::vector<std::uint8_t>& out, std::size_t limit = 65535)
      : out_(out), limit_(limit) {}

  std::size_t size() const noexcept { return out_.size(); }
  std::size_t limit() const noexcept { return limit_; }
  void set_limit(std::size_t limit) noexcept { limit_ = limit; }
  bool overflow() const noexcept { return overflow_; }
  const std::uint8_t* data() const noexcept { return out_.data(); }

  void u8(std::uint8_t v) {
    if (!room(1)) return;
    out_.push_back(v);
  }
  void u16(std::uint16_t v) {
    if (!room(2)) return;
    std::uint8_t b[2] = {static_cast<std::uint8_t>(v >> 8), static_cast<std::uint8_t>(v)};
    out_.insert(out_.end(), b, b + 2);
  }
  void u32(std::uint32_t v) {
    if (!room(4)) return;
    std::uint8_t b[4] = {static_cast<std::uint8_t>(v >> 24), static_cast<std::uint8_t>(v >> 16),
                         static_cast<std::uint8_t>(v >> 8), static_cast<std::uint8_t>(v)};
    out_.insert(out_.end(), b, b + 4);
  }
  void bytes(std::span<const std::uint8_t> s) {
    if (!room(s.size())) return;
    out_.insert(out_.end(), s.begin(), s.end());
  }
  // Overwrites a u16 already written (RDLENGTH, header counts).
  void patch_u16(std::size_t at, std::uint16_t v) noexcept {
    assert(at + 2 <= out_.size());
    out_[at] = static_cast<std::uint8_t>(v >> 8);
    out_[at + 1] = static_cast<std::uint8_t>(v);
  }
  // Rolls back to an earlier size and clears the overflow flag.
  void truncate(std::size_t to) {
    assert(to <= out_.size());
    out_.resize(to);
    overflow_ = false;
  }

 private:
  bool room(std::size_t n) noexcept {
    if (overflow_ || out_.size() + n > limit_) {
      overflow_ = true;
      return false;
    }
    return true;
  }

  std::vector<std::uint8_t>& out_;
  std::size_t limit_;
  bool overflow_ = false;
};

}  // namespace herald::dns
