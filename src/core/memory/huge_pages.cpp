#include "core/memory/huge_pages.hpp"

#include <sys/mman.h>

#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <system_error>

namespace herald::memory {

HugePages back_heap_with_huge_pages() {
  HugePages out;
  std::ifstream maps("/proc/self/smaps");
  if (!maps) {
    out.error = "no /proc/self/smaps";
    return out;
  }
  // The heap may be several mappings (an earlier advice split it), back to
  // back: from the first one's start to the last one's end.
  std::string line;
  std::uintptr_t lo = 0, hi = 0;
  while (std::getline(maps, line)) {
    std::uintptr_t a = 0, b = 0;
    if (line.ends_with("[heap]") &&
        std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR, &a, &b) == 2) {
      if (lo == 0) lo = a;
      hi = b;
    }
  }
  if (hi <= lo) {
    out.error = "no [heap] mapping";
    return out;
  }
  // Whole 2 MiB pages inside the mapping only (madvise wants page-aligned
  // ranges; a huge page cannot straddle the mapping's ends).
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  std::uintptr_t a = (lo + kHuge - 1) & ~(kHuge - 1);
  std::uintptr_t b = hi & ~(kHuge - 1);
  if (b <= a) {
    out.error = "heap smaller than a huge page";
    return out;
  }
  // Safety: the range lies inside this process's own [heap] mapping, and
  // both advices only change how it is backed, never its contents.
  void* start = reinterpret_cast<void*>(a);
  if (::madvise(start, b - a, MADV_HUGEPAGE) != 0) {
    out.error = "madvise(MADV_HUGEPAGE): " + std::generic_category().message(errno);
    return out;
  }
#ifndef MADV_COLLAPSE
  constexpr int MADV_COLLAPSE = 25;  // Linux 6.1; older C library headers lack it
#endif
  if (::madvise(start, b - a, MADV_COLLAPSE) != 0 && errno != EAGAIN) {
    // EAGAIN: some pages could not be collapsed now (memory pressure); the
    // advice stands and khugepaged finishes later. Other errors: say so.
    out.error = "madvise(MADV_COLLAPSE): " + std::generic_category().message(errno);
  }
  // What the heap holds in huge pages now.
  std::ifstream again("/proc/self/smaps");
  bool in_heap = false;
  while (std::getline(again, line)) {
    if (!line.empty() && std::isxdigit(static_cast<unsigned char>(line[0])) &&
        line.find('-') != std::string::npos) {
      in_heap = line.ends_with("[heap]");
    } else if (in_heap && line.starts_with("AnonHugePages:")) {
      out.kib += std::strtoull(line.c_str() + 14, nullptr, 10);
    }
  }
  return out;
}

}  // namespace herald::memory
