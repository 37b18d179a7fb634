// Counts heap allocations made through the global operator new of the
// binary that links herald_alloc_counter (alloc_counter.cpp replaces every
// form of it). Tests pin counts with it; benchmarks report them per
// operation. Read the counters around the code under test; other threads'
// allocations count too.
#pragma once

#include <cstdint>

namespace herald::test {

[[nodiscard]] std::uint64_t allocation_count();
[[nodiscard]] std::uint64_t allocated_bytes();
// Allocations made by the calling thread only: a test that drives an
// in-process server from its own thread subtracts these to see the server's.
[[nodiscard]] std::uint64_t thread_allocation_count();

// Allocations (and bytes) since construction.
class AllocationScope {
 public:
  AllocationScope() : start_(allocation_count()), start_bytes_(allocated_bytes()) {}
  [[nodiscard]] std::uint64_t count() const { return allocation_count() - start_; }
  [[nodiscard]] std::uint64_t bytes() const { return allocated_bytes() - start_bytes_; }

 private:
  std::uint64_t start_;
  std::uint64_t start_bytes_;
};

}  // namespace herald::test
