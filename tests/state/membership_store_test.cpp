#include "state/membership_store.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <random>
#include <set>

#include "store_fixture.hpp"

namespace herald::state {
namespace {

using test::fresh_dir;
using test::open_store;

std::vector<Outcome> apply(MembershipStore& s, std::vector<Change> changes) {
  auto r = s.apply(changes);
  if (!r) ADD_FAILURE() << r.error();
  return r ? *r : std::vector<Outcome>{};
}

TEST(MembershipStore, JoinsReadsMarkersAndLeaves) {
  auto dir = fresh_dir("basic");
  auto s = open_store({.dir = dir});
  ASSERT_TRUE(s);
  EXPECT_EQ(apply(*s, {Join{"ann", "team:ops"}, Join{"ann", "team:dev", MemberState::invited},
                       Join{"bob", "team:ops"}, Join{"ann", "team:ops"}}),
            (std::vector{Outcome::done, Outcome::done, Outcome::done, Outcome::unchanged}));
  EXPECT_EQ(apply(*s, {AddMention{"ann", "team:ops"}, AddMention{"ann", "team:ops"},
                       SetFlags{"ann", "team:ops", kFavourite | kMarkedUnread, kKnownFlags,
                                NotifyMode::mute}}),
            (std::vector{Outcome::done, Outcome::done, Outcome::done}));
  auto ops = s->find("ann", "team:ops");
  ASSERT_TRUE(ops && *ops);
  EXPECT_EQ((*ops)->mentions, 2U);
  EXPECT_EQ((*ops)->flags, kFavourite | kMarkedUnread);
  EXPECT_EQ((*ops)->notify, NotifyMode::mute);
  // A read marker clears the mentions and "marked unread", not the tags.
  EXPECT_EQ(apply(*s, {SetRead{"ann", "team:ops", {"e1", 41}}}), std::vector{Outcome::done});
  ops = s->find("ann", "team:ops");
  ASSERT_TRUE(ops && *ops);
  EXPECT_EQ((*ops)->read, (ReadMarker{"e1", 41}));
  EXPECT_EQ((*ops)->mentions, 0U);
  EXPECT_EQ((*ops)->flags, kFavourite);
  // Changes of different settings compose: each sets only its own.
  EXPECT_EQ(apply(*s, {SetFlags{"ann", "team:ops", kLowPriority, kLowPriority, std::nullopt},
                       SetFlags{"ann", "team:ops", 0, 0, NotifyMode::mentions},
                       SetFlags{"ann", "team:ops", 0, kFavourite, std::nullopt}}),
            (std::vector{Outcome::done, Outcome::done, Outcome::done}));
  ops = s->find("ann", "team:ops");
  ASSERT_TRUE(ops && *ops);
  EXPECT_EQ((*ops)->flags, kLowPriority);
  EXPECT_EQ((*ops)->notify, NotifyMode::mentions);

  auto rooms = s->rooms_of("ann");
  ASSERT_TRUE(rooms);
  ASSERT_EQ(rooms->size(), 2U);
  EXPECT_EQ((*rooms)[0].room, "team:dev");
  EXPECT_EQ((*rooms)[0].state, MemberState::invited);
  EXPECT_EQ((*rooms)[1].room, "team:ops");
  EXPECT_EQ(s->members_of("team:ops").value(), (std::vector<std::string>{"ann", "bob"}));

  EXPECT_EQ(
      apply(*s, {Leave{"ann", "team:ops"}, Leave{"ann", "team:ops"}, SetRead{"ann", "team:ops", {}},
                 AddMention{"cat", "team:ops"}}),
      (std::vector{Outcome::done, Outcome::unchanged, Outcome::not_member, Outcome::not_member}));
  EXPECT_EQ(s->members_of("team:ops").value(), (std::vector<std::string>{"bob"}));
  EXPECT_FALSE(s->find("ann", "team:ops").value());
  // A user whose name is another's prefix is not mixed up with it.
  EXPECT_EQ(apply(*s, {Join{"an", "x"}}), std::vector{Outcome::done});
  EXPECT_EQ(s->rooms_of("an").value().size(), 1U);
  EXPECT_EQ(s->rooms_of("ann").value().size(), 1U);
  std::filesystem::remove_all(dir);
}

TEST(MembershipStore, ADirectJoinStartsWithTheDirectFlag) {
  auto dir = fresh_dir("direct");
  auto s = open_store({.dir = dir});
  ASSERT_TRUE(s);
  EXPECT_EQ(apply(*s, {Join{"ann", "dm:bob", MemberState::joined, true}, Join{"ann", "team:ops"},
                       Join{"ann", "dm:bob", MemberState::joined, false}}),
            (std::vector{Outcome::done, Outcome::done, Outcome::unchanged}));
  EXPECT_EQ(s->find("ann", "dm:bob").value()->flags, kDirect);
  EXPECT_EQ(s->find("ann", "team:ops").value()->flags, 0);
  std::filesystem::remove_all(dir);
}

TEST(MembershipStore, RefusesBadNamesAndValuesChangeByChange) {
  auto dir = fresh_dir("bad");
  auto s = open_store({.dir = dir});
  ASSERT_TRUE(s);
  const std::string nul("a\0b", 3);
  EXPECT_EQ(
      apply(*s, {Join{nul, "r"}, Join{"u", nul}, Join{"", "r"}, Join{"u", std::string(600, 'r')},
                 Join{"u", "r"}, SetFlags{"u", "r", 0x100, 0x100, NotifyMode::all},
                 SetFlags{"u", "r", 0, 0x100, std::nullopt},
                 SetFlags{"u", "r", 0, 0, static_cast<NotifyMode>(9)},
                 SetRead{"u", "r", {std::string(kMaxEpochBytes + 1, 'e'), 1}}}),
      (std::vector{Outcome::bad_name, Outcome::bad_name, Outcome::bad_name, Outcome::bad_name,
                   Outcome::done, Outcome::bad_value, Outcome::bad_value, Outcome::bad_value,
                   Outcome::bad_value}));
  EXPECT_EQ(s->rooms_of("u").value().size(), 1U);
  std::filesystem::remove_all(dir);
}

TEST(MembershipStore, LimitsRefuseTheJoinThatWouldPassThem) {
  auto dir = fresh_dir("limits");
  auto s = open_store({.dir = dir, .max_rooms_per_user = 2, .max_members_per_room = 3});
  ASSERT_TRUE(s);
  EXPECT_EQ(apply(*s, {Join{"u", "a"}, Join{"u", "b"}, Join{"u", "c"}}),
            (std::vector{Outcome::done, Outcome::done, Outcome::too_many_rooms}));
  EXPECT_EQ(apply(*s, {Join{"v", "a"}, Join{"w", "a"}, Join{"x", "a"}}),
            (std::vector{Outcome::done, Outcome::done, Outcome::too_many_members}));
  // Leaving makes room again.
  EXPECT_EQ(apply(*s, {Leave{"u", "a"}, Join{"u", "c"}, Join{"x", "a"}}),
            (std::vector{Outcome::done, Outcome::done, Outcome::done}));
  std::filesystem::remove_all(dir);
}

TEST(MembershipStore, AFullMapRefusesTheBatchWholeAndNamesTheLimit) {
  auto dir = fresh_dir("full");
  auto s = open_store({.dir = dir, .max_bytes = 64 * 1024});
  ASSERT_TRUE(s);
  std::vector<Change> batch;
  for (int i = 0; i < 5000; ++i) batch.emplace_back(Join{"user-" + std::to_string(i), "room"});
  auto r = s->apply(batch);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error(), ::testing::HasSubstr("state.max_bytes (65536 bytes) is reached"));
  // Nothing of it was applied, and the store still serves.
  EXPECT_TRUE(s->members_of("room").value().empty());
  EXPECT_EQ(apply(*s, {Join{"u", "r"}}), std::vector{Outcome::done});
  std::filesystem::remove_all(dir);
}

// The store against a std::map of the same changes, over random batches;
// then reopened, the same again.
TEST(MembershipStore, MatchesAnInMemoryModelAndSurvivesAReopen) {
  auto dir = fresh_dir("model");
  using Key = std::pair<std::string, std::string>;  // user, room
  std::map<Key, Membership> model;
  std::mt19937_64 rng(7);
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  const MembershipStore::Options o{.dir = dir, .max_rooms_per_user = 8, .max_members_per_room = 6};
  auto s = open_store(o);
  ASSERT_TRUE(s);
  auto count = [&](auto pred) {
    return static_cast<std::uint32_t>(std::count_if(model.begin(), model.end(), pred));
  };
  for (int round = 0; round < 200; ++round) {
    std::vector<Change> batch;
    std::vector<Outcome> expected;
    for (int i = 0; i < 20; ++i) {
      const std::string user = "u" + std::to_string(pick(12));
      const std::string room = "r" + std::to_string(pick(15));
      const Key key{user, room};
      auto it = model.find(key);
      switch (pick(5)) {
        case 0: {
          const auto state = pick(2) == 0 ? MemberState::joined : MemberState::invited;
          batch.emplace_back(Join{user, room, state});
          if (it != model.end()) {
            // A join accepts an invitation; anything else leaves a member.
            const bool accepts =
                it->second.state == MemberState::invited && state == MemberState::joined;
            if (accepts) it->second.state = MemberState::joined;
            expected.push_back(accepts ? Outcome::done : Outcome::unchanged);
          } else if (count([&](auto& e) { return e.first.first == user; }) >= 8) {
            expected.push_back(Outcome::too_many_rooms);
          } else if (count([&](auto& e) { return e.first.second == room; }) >= 6) {
            expected.push_back(Outcome::too_many_members);
          } else {
            Membership m;
            m.state = state;
            model[key] = m;
            expected.push_back(Outcome::done);
          }
          break;
        }
        case 1:
          batch.emplace_back(Leave{user, room});
          expected.push_back(it == model.end() ? Outcome::unchanged : Outcome::done);
          if (it != model.end()) model.erase(it);
          break;
        case 2: {
          const ReadMarker read{"e" + std::to_string(pick(3)),
                                static_cast<std::uint64_t>(pick(1000))};
          batch.emplace_back(SetRead{user, room, read});
          expected.push_back(it == model.end() ? Outcome::not_member : Outcome::done);
          if (it != model.end()) {
            it->second.read = read;
            it->second.mentions = 0;
            it->second.flags = static_cast<std::uint16_t>(it->second.flags & ~kMarkedUnread);
          }
          break;
        }
        case 3: {
          // Some bits set, the others kept (the model's own arithmetic,
          // not with_flags); the mode given or kept.
          const auto flags = static_cast<std::uint16_t>(pick(16));
          const auto mask = static_cast<std::uint16_t>(pick(16));
          const int mode = pick(4);
          const std::optional<NotifyMode> notify =
              mode == 3 ? std::nullopt : std::optional(static_cast<NotifyMode>(mode));
          batch.emplace_back(SetFlags{user, room, flags, mask, notify});
          expected.push_back(it == model.end() ? Outcome::not_member : Outcome::done);
          if (it != model.end()) {
            for (std::uint16_t bit = 1; bit < 16; bit = static_cast<std::uint16_t>(bit << 1)) {
              if ((mask & bit) == 0) continue;
              if ((flags & bit) != 0) {
                it->second.flags = static_cast<std::uint16_t>(it->second.flags | bit);
              } else {
                it->second.flags = static_cast<std::uint16_t>(it->second.flags & ~bit);
              }
            }
            if (notify) it->second.notify = *notify;
          }
          break;
        }
        default:
          batch.emplace_back(AddMention{user, room});
          expected.push_back(it == model.end() ? Outcome::not_member : Outcome::done);
          if (it != model.end()) ++it->second.mentions;
      }
    }
    ASSERT_EQ(apply(*s, batch), expected) << "round " << round;
  }
  auto check = [&](const MembershipStore& store) {
    for (int u = 0; u < 12; ++u) {
      const std::string user = "u" + std::to_string(u);
      std::vector<Membership> want;
      for (const auto& [key, m] : model) {
        if (key.first != user) continue;
        Membership with_room = m;
        with_room.room = key.second;
        want.push_back(with_room);
      }
      EXPECT_EQ(store.rooms_of(user).value(), want) << user;
    }
    for (int r = 0; r < 15; ++r) {
      const std::string room = "r" + std::to_string(r);
      std::vector<std::string> want;
      for (const auto& [key, m] : model)
        if (key.second == room) want.push_back(key.first);
      std::sort(want.begin(), want.end());
      EXPECT_EQ(store.members_of(room).value(), want) << room;
    }
  };
  check(*s);
  s.reset();
  auto again = open_store(o);
  ASSERT_TRUE(again);
  check(*again);
  std::filesystem::remove_all(dir);
}

// A writer killed with SIGKILL right after its batches were applied: every
// batch it was told applied is there when the store is opened again.
TEST(MembershipStore, BatchesAppliedBeforeASigkillAreThereAfterIt) {
  auto dir = fresh_dir("kill");
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(ready[0]);
    auto opened = MembershipStore::open({.dir = dir});
    if (!opened) ::_exit(3);
    for (int b = 0; b < 50; ++b) {
      std::vector<Change> batch;
      for (int i = 0; i < 100; ++i) {
        const std::string user = "user-" + std::to_string(b * 100 + i);
        batch.emplace_back(Join{user, "lobby"});
        batch.emplace_back(SetRead{user, "lobby", {"e", static_cast<std::uint64_t>(b)}});
      }
      if (!(*opened)->apply(batch)) ::_exit(4);
    }
    const char done = 1;
    if (::write(ready[1], &done, 1) != 1) ::_exit(5);
    ::pause();  // killed here, with the environment open
    ::_exit(0);
  }
  ::close(ready[1]);
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1) << "the writer exited before applying its batches";
  ::close(ready[0]);
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

  auto s = open_store({.dir = dir});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->members_of("lobby").value().size(), 5000U);
  auto last = s->find("user-4999", "lobby").value();
  ASSERT_TRUE(last);
  EXPECT_EQ(last->read, (ReadMarker{"e", 49}));
  std::filesystem::remove_all(dir);
}

TEST(MembershipStore, ADirectoryThatCannotBeMadeIsNamed) {
  auto r = MembershipStore::open({.dir = "/proc/herald-state-cannot-be-here"});
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error(), ::testing::HasSubstr("/proc/herald-state-cannot-be-here"));
}

}  // namespace
}  // namespace herald::state
