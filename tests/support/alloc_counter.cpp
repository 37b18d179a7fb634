// Replaces the global allocation functions with malloc/free plus a counter.
// Every form of operator new counts once; deletes only free. Sanitizers still
// see every block, since they intercept malloc and free underneath.
//
// aligned_alloc is counted too: asio allocates its operations with
// std::aligned_alloc (boost/asio/detail/memory.hpp, aligned_new), not with
// operator new, and the gateway's fan-out pin must see those. Aligned blocks
// come from posix_memalign, which this file does not replace: whoever owns
// malloc and free (libc, or a sanitizer's interceptors, linked statically
// by clang and dynamically by gcc) owns it too, so free() always meets a
// block of its own. (Forwarding to the "next" aligned_alloc found libc's
// under clang's static runtime, whose blocks the sanitizer's free refused.)
#include "support/alloc_counter.hpp"

#include <stdlib.h>  // posix_memalign

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace {

std::atomic<std::uint64_t> g_allocations{0};
std::atomic<std::uint64_t> g_bytes{0};
// constinit: a plain thread-local integer needs no dynamic initialisation
// (which could itself allocate inside operator new).
constinit thread_local std::uint64_t t_allocations = 0;

void* counted(std::size_t size) {
  ++t_allocations;
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  g_bytes.fetch_add(size, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}

// posix_memalign wants a power of two that is a multiple of sizeof(void*);
// aligned_alloc and operator new may ask for less (8, or a fundamental 16).
void* aligned_block(std::size_t align, std::size_t size) noexcept {
  void* p = nullptr;
  return posix_memalign(&p, std::max(align, sizeof(void*)), size) == 0 ? p : nullptr;
}

void* counted_aligned(std::size_t size, std::align_val_t align) {
  ++t_allocations;
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  g_bytes.fetch_add(size, std::memory_order_relaxed);
  const auto a = static_cast<std::size_t>(align);
  // aligned_alloc wants a size that is a multiple of the alignment.
  const std::size_t rounded = (size + a - 1) / a * a;
  if (void* p = aligned_block(a, rounded == 0 ? a : rounded)) return p;
  throw std::bad_alloc();
}

}  // namespace

namespace herald::test {
std::uint64_t allocation_count() {
  return g_allocations.load(std::memory_order_relaxed);
}
std::uint64_t allocated_bytes() {
  return g_bytes.load(std::memory_order_relaxed);
}
std::uint64_t thread_allocation_count() {
  return t_allocations;
}
}  // namespace herald::test

// GCC 12 flags malloc/free inside replaced global operators as mismatched
// (-Wmismatched-new-delete); they match by construction: every operator new
// below returns malloc's memory and every delete frees it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

void* operator new(std::size_t size) {
  return counted(size);
}
void* operator new[](std::size_t size) {
  return counted(size);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return counted(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return counted(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new(std::size_t size, std::align_val_t align) {
  return counted_aligned(size, align);
}
void* operator new[](std::size_t size, std::align_val_t align) {
  return counted_aligned(size, align);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
#pragma GCC diagnostic pop

extern "C" void* aligned_alloc(std::size_t align, std::size_t size) noexcept {
  ++t_allocations;
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  g_bytes.fetch_add(size, std::memory_order_relaxed);
  return aligned_block(align, size);
}
