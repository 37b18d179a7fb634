#include "state/record.hpp"

#include <gtest/gtest.h>

namespace herald::state {
namespace {

TEST(Record, RoundTripsEveryField) {
  Membership m;
  m.state = MemberState::invited;
  m.flags = kFavourite | kDirect;
  m.notify = NotifyMode::mentions;
  m.mentions = 0xFFFF'FFFF;
  m.read = {"epoch-1", 0xFFFF'FFFF'FFFF'FFFF};
  const std::string bytes = encode_record(m);
  EXPECT_EQ(bytes.size(), kRecordHeaderBytes + 7);
  EXPECT_EQ(decode_record(bytes), m);
  EXPECT_EQ(decode_record(encode_record(Membership{})), Membership{});
}

TEST(Record, RefusesWhatIsNotARecordOfThisVersion) {
  Membership m;
  m.read.epoch = "e";
  const std::string good = encode_record(m);
  EXPECT_FALSE(decode_record(""));
  EXPECT_FALSE(decode_record(good.substr(0, good.size() - 1)));  // epoch cut short
  EXPECT_FALSE(decode_record(good + "x"));                       // trailing bytes
  auto with = [&](std::size_t at, char byte) {
    std::string b = good;
    b[at] = byte;
    return decode_record(b);
  };
  EXPECT_FALSE(with(0, 2));     // a later version
  EXPECT_FALSE(with(1, 0));     // no such state
  EXPECT_FALSE(with(2, 3));     // no such notification mode
  EXPECT_FALSE(with(3, 65));    // epoch longer than kMaxEpochBytes
  EXPECT_FALSE(with(4, 0x10));  // an unknown flag bit
  // Every prefix and every single-byte change of a record either decodes to
  // a valid membership or is refused: nothing reads past the bytes.
  for (std::size_t n = 0; n < good.size(); ++n) (void)decode_record(good.substr(0, n));
  for (std::size_t at = 0; at < good.size(); ++at)
    for (int b = 0; b < 256; ++b) (void)with(at, static_cast<char>(b));
}

// The unread rule (state/membership.hpp): offsets between the marker and
// the top in one epoch; the whole stream in another, or with nothing read;
// never negative when the marker is ahead (a top read before the marker
// was set).
TEST(UnreadAfter, CountsOffsetsInOneEpochAndTheWholeStreamInAnother) {
  EXPECT_EQ(unread_after(ReadMarker{"e1", 4}, "e1", 9), 5u);
  EXPECT_EQ(unread_after(ReadMarker{"e1", 9}, "e1", 9), 0u);
  EXPECT_EQ(unread_after(ReadMarker{"e1", 12}, "e1", 9), 0u);
  EXPECT_EQ(unread_after(ReadMarker{"e1", 4}, "e2", 3), 3u);
  EXPECT_EQ(unread_after(ReadMarker{}, "e2", 7), 7u);
  EXPECT_EQ(unread_after(ReadMarker{}, "", 0), 0u);
}

}  // namespace
}  // namespace herald::state
