#include "hyperscan_peer.hpp"

#include <hs/hs.h>

#include <stdexcept>

namespace herald::bench {
namespace {

int count_match(unsigned /*id*/, unsigned long long /*from*/, unsigned long long /*to*/,
                unsigned /*flags*/, void* ctx) {
  // Safety: ctx is the std::uint64_t count() passes to hs_scan.
  ++*static_cast<std::uint64_t*>(ctx);
  return 0;
}

}  // namespace

struct HyperscanPeer::Handles {
  hs_database_t* db = nullptr;
  hs_scratch_t* scratch = nullptr;
  ~Handles() {
    hs_free_scratch(scratch);
    hs_free_database(db);
  }
};

HyperscanPeer::HyperscanPeer(const std::vector<std::string>& dict) : h_(new Handles) {
  std::vector<const char*> exprs;
  std::vector<std::size_t> lens;
  const std::vector<unsigned> flags(dict.size(), 0);
  std::vector<unsigned> ids(dict.size());
  for (std::size_t i = 0; i < dict.size(); ++i) {
    exprs.push_back(dict[i].data());
    lens.push_back(dict[i].size());
    ids[i] = static_cast<unsigned>(i);
  }
  hs_compile_error_t* err = nullptr;
  if (hs_compile_lit_multi(exprs.data(), flags.data(), ids.data(), lens.data(),
                           static_cast<unsigned>(dict.size()), HS_MODE_BLOCK, nullptr, &h_->db,
                           &err) != HS_SUCCESS) {
    const std::string what = err != nullptr ? err->message : "hs_compile_lit_multi failed";
    hs_free_compile_error(err);
    throw std::runtime_error("Hyperscan: " + what);
  }
  if (hs_alloc_scratch(h_->db, &h_->scratch) != HS_SUCCESS) {
    throw std::runtime_error("Hyperscan: hs_alloc_scratch failed");
  }
}

HyperscanPeer::~HyperscanPeer() = default;

std::uint64_t HyperscanPeer::count(std::string_view text) const {
  std::uint64_t found = 0;
  if (hs_scan(h_->db, text.data(), static_cast<unsigned>(text.size()), 0, h_->scratch, count_match,
              &found) != HS_SUCCESS) {
    throw std::runtime_error("Hyperscan: hs_scan failed");
  }
  return found;
}

std::size_t HyperscanPeer::memory_bytes() const {
  std::size_t bytes = 0;
  (void)hs_database_size(h_->db, &bytes);
  return bytes;
}

}  // namespace herald::bench
