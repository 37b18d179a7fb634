#include "gateway/protocol/room_name.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace herald::gateway {
namespace {

TEST(RoomName, ValidAndInvalid) {
  for (const char* good : {"lobby", "chat:lobby", "a:b:c", "user/42@x=y+z~!", "A-Z_0.9"}) {
    EXPECT_FALSE(protocol::room_name_error(good)) << good;
  }
  EXPECT_EQ(protocol::room_name_error(""), "room name is empty");
  EXPECT_TRUE(protocol::room_name_error(std::string(256, 'a')));
  EXPECT_FALSE(protocol::room_name_error(std::string(255, 'a')));
  EXPECT_TRUE(protocol::room_name_error(":x"));
  EXPECT_TRUE(protocol::room_name_error("has space"));
  EXPECT_TRUE(protocol::room_name_error("quote\""));
  EXPECT_TRUE(protocol::room_name_error("caf\xc3\xa9"));
  // Room names become parts of Redis keys and channels: nothing that could
  // steer a key elsewhere gets through (a Redis Cluster hash tag, a glob,
  // a line break, a NUL).
  for (const char* injection : {"a{b}", "x}{", "room*", "room?", "[ab]", "a\r\nDEL x", "a b"}) {
    EXPECT_TRUE(protocol::room_name_error(injection)) << injection;
  }
  EXPECT_TRUE(protocol::room_name_error(std::string("a\0b", 3)));
  EXPECT_EQ(*protocol::room_name_error("ab cd"),
            "room name has a character that is not allowed at byte 2 (allowed: letters, digits "
            "and _-.:@/=+~!#,$)");
}

// Centrifugo's channel conventions: '$' first marks a private room, users
// after the last '#' limit a room to them.
TEST(RoomName, PrivateAndUserLimitedRooms) {
  for (const char* good : {"$secret", "$chat:secret", "dialog#42,43", "chat:dm#a", "a#b#c,d"}) {
    EXPECT_FALSE(protocol::room_name_error(good)) << good;
  }
  EXPECT_THAT(*protocol::room_name_error("a$b"), testing::HasSubstr("'$' only begins a name"));
  EXPECT_THAT(*protocol::room_name_error("$"), testing::HasSubstr("only the private mark"));
  EXPECT_TRUE(protocol::room_name_error("$:x"));
  EXPECT_THAT(*protocol::room_name_error("a,b#c"), testing::HasSubstr("',' only separates"));
  EXPECT_TRUE(protocol::is_private_room("$chat:x"));
  EXPECT_FALSE(protocol::is_private_room("chat:$x"));
  EXPECT_EQ(protocol::room_namespace("$chat:x"), "chat");
  EXPECT_EQ(protocol::room_namespace("$x"), "");

  EXPECT_TRUE(protocol::room_admits_user("lobby", "anyone"));
  EXPECT_TRUE(protocol::room_admits_user("dialog#42,43", "42"));
  EXPECT_TRUE(protocol::room_admits_user("dialog#42,43", "43"));
  EXPECT_FALSE(protocol::room_admits_user("dialog#42,43", "4"));
  EXPECT_FALSE(protocol::room_admits_user("dialog#42,43", "42,43"));
  EXPECT_FALSE(protocol::room_admits_user("dialog#42,43", ""));
  // Only the part after the last '#' lists users.
  EXPECT_TRUE(protocol::room_admits_user("a#b#c,d", "d"));
  EXPECT_FALSE(protocol::room_admits_user("a#b#c,d", "b"));
  EXPECT_FALSE(protocol::room_admits_user("personal#", "alice"));
}

TEST(RoomName, NamespaceAndPatterns) {
  EXPECT_EQ(protocol::room_namespace("chat:lobby"), "chat");
  EXPECT_EQ(protocol::room_namespace("lobby"), "");
  EXPECT_TRUE(protocol::room_matches("*", "anything"));
  EXPECT_TRUE(protocol::room_matches("chat:*", "chat:x"));
  EXPECT_FALSE(protocol::room_matches("chat:*", "chat:"));
  EXPECT_FALSE(protocol::room_matches("chat:*", "chatter:x"));
  EXPECT_TRUE(protocol::room_matches("news", "news"));
  EXPECT_FALSE(protocol::room_matches("news", "news:x"));
}

}  // namespace
}  // namespace herald::gateway
