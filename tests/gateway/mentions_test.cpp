// The mention rule (protocol/mentions.hpp): what names a user, what does
// not, each user once and at most `max`; mentions() agrees with
// mentioned_users() (the room list's count and the kept one read the same
// rule).
#include "gateway/protocol/mentions.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace herald::gateway::protocol {
namespace {

using Names = std::vector<std::string_view>;

TEST(Mentions, NamesAfterAnAtSignUpToAByteThatCannotBeInAName) {
  EXPECT_EQ(mentioned_users("@ann hi", 10), (Names{"ann"}));
  EXPECT_EQ(mentioned_users("thanks @ann.", 10), (Names{"ann"}));  // a full stop ends it
  EXPECT_EQ(mentioned_users("@j.doe, @x_y-z!", 10), (Names{"j.doe", "x_y-z"}));
  EXPECT_EQ(mentioned_users("(@bob)", 10), (Names{"bob"}));
  EXPECT_EQ(mentioned_users("héllo @zoë", 10), (Names{"zoë"}));     // UTF-8 bytes are name bytes
  EXPECT_EQ(mentioned_users("mail ann@example.com", 10), Names{});  // inside a word
  EXPECT_EQ(mentioned_users("@ @. @", 10), Names{});
  EXPECT_EQ(mentioned_users("@@ann", 10), (Names{"ann"}));  // '@' is not a name byte
  EXPECT_EQ(mentioned_users("", 10), Names{});
}

TEST(Mentions, EachUserOnceInOrderAndAtMostMax) {
  EXPECT_EQ(mentioned_users("@b @a @b @c", 10), (Names{"b", "a", "c"}));
  EXPECT_EQ(mentioned_users("@b @a @b @c", 2), (Names{"b", "a"}));
  EXPECT_EQ(mentioned_users("@b @a", 0), Names{});
}

TEST(Mentions, MentionsAgreesWithTheList) {
  for (const std::string text :
       {"@ann", "@annie", "x@ann", "hi @ann.", "@bob @ann", "@an", "@ann,@bob", "@ANN"}) {
    const Names all = mentioned_users(text, 100);
    const bool listed = std::find(all.begin(), all.end(), "ann") != all.end();
    EXPECT_EQ(mentions(text, "ann"), listed) << text;
  }
  EXPECT_TRUE(mentions("hi @ann", "ann"));
  EXPECT_FALSE(mentions("hi @annie", "ann"));
  EXPECT_FALSE(mentions("hi @ANN", "ann"));  // names are bytes: case counts
}

}  // namespace
}  // namespace herald::gateway::protocol
