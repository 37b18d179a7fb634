// Transparent huge pages for the process heap: a large, long-lived
// structure allocated piecemeal (heraldd's DNS zone database: many small
// blocks from malloc's heap) touches scattered lines, and over hundreds of
// MB each touch is also a TLB miss; backed by 2 MiB pages it costs 20-30%
// less CPU per DNS answer (docs/benchmarks.md, D1). Kept here, apart from
// the DNS module, because it is about the process's memory, not about DNS.
#pragma once

#include <cstddef>
#include <string>

namespace herald::memory {

// Backs the process heap with transparent
// huge pages: MADV_HUGEPAGE on the [heap] mapping, so that later growth
// faults in 2 MiB pages, and MADV_COLLAPSE, so that what is there already
// is collapsed now. Returns the heap's huge-page KiB after (AnonHugePages of
// the mapping), and what failed if anything did (no THP, a kernel before
// 6.1, a heap smaller than one huge page). Linux only.
struct HugePages {
  std::size_t kib = 0;
  std::string error;
};
[[nodiscard]] HugePages back_heap_with_huge_pages();

}  // namespace herald::memory
