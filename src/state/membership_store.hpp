// MembershipStore: the memberships of every user, durable, in LMDB under a
// directory of its own (docs/plans/room-state.md; LMDB was chosen by
// measurement, S1 in docs/benchmarks.md).
//
// Three B+trees in one environment, written together in each transaction:
//   member          "user\0room" -> the record (state/record.hpp)
//   member_by_room  "room\0user" -> nothing: the index for a room's members
//   counts          "u\0user" / "r\0room" -> rooms of a user / members of a
//                   room (4 bytes), so the limits cost one read, not a scan
//
// Writes come in batches (apply: one transaction each), which is how a
// writer that batches read markers uses it. Commits reach the OS before
// apply returns (MDB_NOSYNC): a process killed right after survives with
// every batch it was told applied; with `sync` they reach the disk too
// (power loss), at several times the cost (S1).
//
// Reads take a read-only transaction each, on any thread, and never wait
// for the writer (MDB_NOTLS: a transaction belongs to its call, not to its
// thread). apply() may be called from any thread; LMDB runs one write
// transaction at a time.
//
// Bounds, explicit: max_bytes is the map's size; a batch that would
// outgrow it is refused whole, naming state.max_bytes. max_rooms_per_user
// and max_members_per_room refuse the Join that would pass them
// (Outcome::too_many_rooms / too_many_members), the rest of the batch going
// on.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "state/membership.hpp"

namespace herald::state {

class MembershipStore {
 public:
  struct Options {
    std::filesystem::path dir;  // created if missing
    std::uint64_t max_bytes = std::uint64_t{1} << 30;
    bool sync = false;  // fsync each commit (power loss) rather than only reach the OS
    std::uint32_t max_rooms_per_user = 1000;
    std::uint32_t max_members_per_room = 100'000;
  };

  // Opens (or creates) the store in options.dir; the error says what and
  // where ("state: /var/lib/herald/state: Permission denied").
  [[nodiscard]] static Result<std::unique_ptr<MembershipStore>, std::string> open(Options options);
  ~MembershipStore();
  MembershipStore(const MembershipStore&) = delete;
  MembershipStore& operator=(const MembershipStore&) = delete;

  // Applies `changes` in one transaction, in order: each change's outcome,
  // or why none was applied (the map full, or the store failing).
  [[nodiscard]] Result<std::vector<Outcome>, std::string> apply(std::span<const Change> changes);

  // Every room of `user`, by room name; an error names a damaged record.
  [[nodiscard]] Result<std::vector<Membership>, std::string> rooms_of(std::string_view user) const;
  // Every member of `room`, by user name.
  [[nodiscard]] Result<std::vector<std::string>, std::string> members_of(
      std::string_view room) const;
  // One membership, or nullopt.
  [[nodiscard]] Result<std::optional<Membership>, std::string> find(std::string_view user,
                                                                    std::string_view room) const;

  [[nodiscard]] const Options& options() const { return options_; }

 private:
  struct Env;
  MembershipStore(Options options, std::unique_ptr<Env> env);
  Options options_;
  std::unique_ptr<Env> env_;
};

}  // namespace herald::state
