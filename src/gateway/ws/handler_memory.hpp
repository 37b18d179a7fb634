// Memory for the asynchronous operations that recur on the fan-out path, so
// that delivering a publication to a subscriber allocates nothing.
//
// asio allocates each operation (a read, a wait, a post) through the
// completion handler's associated allocator; the default one is asio's
// per-thread recycling cache, which keeps two blocks, so N operations alive
// at once (a fan-out to N sessions) went to the heap for nearly every one
// (pinned at 0 per recipient by tests/gateway/fanout_alloc_test.cpp).
// HandlerAllocator gives those operations fixed slots inside their owner
// instead, the technique of asio's "allocation" example. Owners: each
// connection (its read, which is always outstanding, and its wait for a full
// socket to drain) and each shard's cork (its drain's post or timer).
//
// Invariants: an owner has at most one operation per slot in flight, and
// asio returns an operation's memory before it invokes the handler, so the
// two slots (a small one and a large one) are free whenever an operation
// starts in steady state; when one is taken, or a block is larger than the
// slot, the allocator falls back to operator new. Lifetime: each handler
// holds a shared_ptr to the connection's session, which owns the
// connection (the cork outlives its posts: the pool is destroyed before
// the shard state), and asio frees the memory while a moved copy of the
// handler is alive, so the slots outlive every block taken from them.
// Single-threaded: all of an owner's operations run on its shard.
#pragma once

#include <cstddef>
#include <cstdio>
#include <new>

namespace herald::gateway::ws {

class HandlerMemory {
 public:
  HandlerMemory() = default;
  HandlerMemory(const HandlerMemory&) = delete;
  HandlerMemory& operator=(const HandlerMemory&) = delete;

  void* allocate(std::size_t size) {
    if (size <= kSmallBytes && !small_used_) {
      small_used_ = true;
      return small_;
    }
    if (size <= kLargeBytes && !large_used_) {
      large_used_ = true;
      return large_;
    }
    return ::operator new(size);
  }

  void deallocate(void* p) noexcept {
    if (p == small_) {
      small_used_ = false;
    } else if (p == large_) {
      large_used_ = false;
    } else {
      ::operator delete(p);
    }
  }

 private:
  // Sized for GCC 12 and Boost 1.81 (measured: a post 56 bytes, a socket
  // read or wait 240), small because every connection holds two of these;
  // gateway_fanout_test fails if a later toolchain outgrows the slots.
  static constexpr std::size_t kSmallBytes = 128;
  static constexpr std::size_t kLargeBytes = 384;
  alignas(std::max_align_t) unsigned char small_[kSmallBytes];
  alignas(std::max_align_t) unsigned char large_[kLargeBytes];
  bool small_used_ = false;
  bool large_used_ = false;
};

// A standard allocator over a HandlerMemory, to bind to completion handlers
// with asio::bind_allocator.
template <class T>
class HandlerAllocator {
 public:
  using value_type = T;
  explicit HandlerAllocator(HandlerMemory& memory) noexcept : memory_(&memory) {}
  template <class U>
  HandlerAllocator(const HandlerAllocator<U>& other) noexcept : memory_(other.memory_) {}

  T* allocate(std::size_t n) {
    // Over-aligned types bypass the slots (aligned to max_align_t only).
    if constexpr (alignof(T) > alignof(std::max_align_t)) {
      return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{alignof(T)}));
    } else {
      return static_cast<T*>(memory_->allocate(n * sizeof(T)));
    }
  }
  void deallocate(T* p, std::size_t) noexcept {
    if constexpr (alignof(T) > alignof(std::max_align_t)) {
      ::operator delete (p, std::align_val_t{alignof(T)});
    } else {
      memory_->deallocate(p);
    }
  }

  template <class U>
  bool operator==(const HandlerAllocator<U>& other) const noexcept {
    return memory_ == other.memory_;
  }

 private:
  template <class>
  friend class HandlerAllocator;
  HandlerMemory* memory_;
};

}  // namespace herald::gateway::ws
