#include "crate_peer.hpp"

#include <stdexcept>

// The C ABI of aho_corasick_peer/src/lib.rs (its doc comments are the
// contract).
extern "C" {
herald_ac_peer* herald_ac_build(const std::uint8_t* const* pats, const std::size_t* lens,
                                std::size_t n, std::uint32_t kind, bool dfa);
std::uint64_t herald_ac_count(const herald_ac_peer* p, const std::uint8_t* hay, std::size_t len);
std::size_t herald_ac_heap_bytes(const herald_ac_peer* p);
std::uint32_t herald_ac_state_id_bytes(const herald_ac_peer* p);
void herald_ac_free(herald_ac_peer* p);
}

namespace herald::bench {
namespace {

// Safety: the crate reads octets; char and std::uint8_t share size and
// alignment, and unsigned char may alias any object.
const std::uint8_t* octets(const char* s) {
  return reinterpret_cast<const std::uint8_t*>(s);
}

std::uint32_t kind_code(match::MatchKind kind) {
  switch (kind) {
    case match::MatchKind::Overlapping:
      return 0;
    case match::MatchKind::LeftmostFirst:
      return 1;
    case match::MatchKind::LeftmostLongest:
      return 2;
  }
  return 0;
}

}  // namespace

CratePeer::CratePeer(const std::vector<std::string>& dict, match::MatchKind kind) {
  std::vector<const std::uint8_t*> pats;
  std::vector<std::size_t> lens;
  for (const std::string& w : dict) {
    pats.push_back(octets(w.data()));
    lens.push_back(w.size());
  }
  p_ = herald_ac_build(pats.data(), lens.data(), dict.size(), kind_code(kind), true);
  if (p_ == nullptr) throw std::runtime_error("aho-corasick: no state id type fits the automaton");
}

CratePeer::~CratePeer() {
  herald_ac_free(p_);
}

std::uint64_t CratePeer::count(std::string_view text) const {
  return herald_ac_count(p_, octets(text.data()), text.size());
}

std::size_t CratePeer::memory_bytes() const {
  return herald_ac_heap_bytes(p_);
}

unsigned CratePeer::state_id_bytes() const {
  return herald_ac_state_id_bytes(p_);
}

}  // namespace herald::bench
