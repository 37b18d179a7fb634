// Counts heap allocations made through the global operator new in this test
// binary (alloc_counter.cpp replaces it). Single-threaded use: tests read the
// counter around the code under test.
#pragma once

#include <cstdint>

namespace herald::match::testing {

[[nodiscard]] std::uint64_t allocation_count();

// Allocations since construction.
class AllocationScope {
 public:
  AllocationScope() : start_(allocation_count()) {}
  [[nodiscard]] std::uint64_t count() const { return allocation_count() - start_; }

 private:
  std::uint64_t start_;
};

}  // namespace herald::match::testing
