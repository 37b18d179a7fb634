#include "state/record.hpp"

namespace herald::state {
namespace {

void put_le(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

std::uint64_t get_le(std::string_view in, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) {
    // Safety: a byte of the record, read as its unsigned value.
    v |= std::uint64_t{static_cast<unsigned char>(in[at + static_cast<std::size_t>(i)])} << (8 * i);
  }
  return v;
}

}  // namespace

std::string encode_record(const Membership& m) {
  std::string out;
  out.reserve(kRecordHeaderBytes + m.read.epoch.size());
  out.push_back(static_cast<char>(kRecordVersion));
  // Safety: the enums' underlying types are std::uint8_t.
  out.push_back(static_cast<char>(m.state));
  out.push_back(static_cast<char>(m.notify));
  out.push_back(static_cast<char>(m.read.epoch.size()));
  put_le(out, m.flags, 2);
  put_le(out, m.mentions, 4);
  put_le(out, m.read.offset, 8);
  out += m.read.epoch;
  return out;
}

std::optional<Membership> decode_record(std::string_view bytes) {
  if (bytes.size() < kRecordHeaderBytes) return std::nullopt;
  if (get_le(bytes, 0, 1) != kRecordVersion) return std::nullopt;
  const std::uint64_t state = get_le(bytes, 1, 1);
  const std::uint64_t notify = get_le(bytes, 2, 1);
  const std::uint64_t epoch_len = get_le(bytes, 3, 1);
  const std::uint64_t flags = get_le(bytes, 4, 2);
  if (state != static_cast<std::uint8_t>(MemberState::joined) &&
      state != static_cast<std::uint8_t>(MemberState::invited))
    return std::nullopt;
  if (notify > static_cast<std::uint8_t>(NotifyMode::mute)) return std::nullopt;
  if (epoch_len > kMaxEpochBytes || bytes.size() != kRecordHeaderBytes + epoch_len)
    return std::nullopt;
  if ((flags & ~std::uint64_t{kKnownFlags}) != 0) return std::nullopt;
  Membership m;
  // Safety: each value was checked above to be one of its enum's.
  m.state = static_cast<MemberState>(state);
  m.notify = static_cast<NotifyMode>(notify);
  m.flags = static_cast<std::uint16_t>(flags);
  m.mentions = static_cast<std::uint32_t>(get_le(bytes, 6, 4));
  m.read.offset = get_le(bytes, 10, 8);
  m.read.epoch.assign(bytes.substr(kRecordHeaderBytes));
  return m;
}

}  // namespace herald::state
