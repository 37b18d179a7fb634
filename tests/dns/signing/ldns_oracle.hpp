// ldns (Debian's libldns, NLnet Labs) as the independent verifier of the
// signatures the online signer makes: its own zone-text parser, its own
// canonical form (ldns_rr2canonical) and its own OpenSSL calls. A signature
// it accepts is one a validator rebuilds from the records alone.
#pragma once

#include <ldns/ldns.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

namespace herald::dns::test {

// "" if `rrsig` (an RRSIG record in presentation form) verifies over the
// RRset `rrset` (records in presentation form) with one of `dnskeys`, at
// the instant `when`; else ldns's reason.
inline std::string ldns_verify(const std::vector<std::string>& rrset, const std::string& rrsig,
                               const std::vector<std::string>& dnskeys, std::time_t when) {
  auto parse = [](const std::string& text, ldns_rr** out) {
    return ldns_rr_new_frm_str(out, text.c_str(), 0, nullptr, nullptr);
  };
  std::string error;
  ldns_rr_list* set = ldns_rr_list_new();
  ldns_rr_list* keys = ldns_rr_list_new();
  ldns_rr* sig = nullptr;
  auto push_all = [&](const std::vector<std::string>& texts, ldns_rr_list* list) {
    for (const std::string& t : texts) {
      ldns_rr* rr = nullptr;
      if (ldns_status s = parse(t, &rr); s != LDNS_STATUS_OK) {
        error = "ldns cannot parse " + t + ": " + ldns_get_errorstr_by_id(s);
        return;
      }
      ldns_rr_list_push_rr(list, rr);
    }
  };
  push_all(rrset, set);
  if (error.empty()) push_all(dnskeys, keys);
  if (error.empty()) {
    if (ldns_status s = parse(rrsig, &sig); s != LDNS_STATUS_OK) {
      error = "ldns cannot parse " + rrsig + ": " + ldns_get_errorstr_by_id(s);
    }
  }
  if (error.empty()) {
    ldns_status s = ldns_verify_rrsig_keylist_time(set, sig, keys, when, nullptr);
    if (s != LDNS_STATUS_OK) error = ldns_get_errorstr_by_id(s);
  }
  ldns_rr_free(sig);
  ldns_rr_list_deep_free(set);
  ldns_rr_list_deep_free(keys);
  return error;
}

// A response as ldns reads it (ldns_wire2pkt), one line per RRset in the
// order the RRsets first appear, and every RRSIG in it verified:
//
//   <an|au|ad> <owner, lower case> <TYPE> [<NSEC next and types>] [sig:<tag>,...]
//
// `errors` holds one line per RRSIG that does not verify with `dnskeys` at
// `when` (or covers no RRset beside it); a response is correctly signed
// when it is empty.
struct CheckedResponse {
  std::string rrsets;
  std::vector<std::string> errors;
};

inline CheckedResponse ldns_check_response(const std::vector<std::uint8_t>& wire,
                                           const std::vector<std::string>& dnskeys,
                                           std::time_t when) {
  CheckedResponse out;
  ldns_pkt* pkt = nullptr;
  if (ldns_status s = ldns_wire2pkt(&pkt, wire.data(), wire.size()); s != LDNS_STATUS_OK) {
    out.errors.push_back(std::string("ldns cannot read the response: ") +
                         ldns_get_errorstr_by_id(s));
    return out;
  }
  ldns_rr_list* keys = ldns_rr_list_new();
  for (const std::string& t : dnskeys) {
    ldns_rr* rr = nullptr;
    if (ldns_rr_new_frm_str(&rr, t.c_str(), 0, nullptr, nullptr) == LDNS_STATUS_OK) {
      ldns_rr_list_push_rr(keys, rr);
    } else {
      out.errors.push_back("ldns cannot parse the key " + t);
    }
  }
  auto text = [](const ldns_rdf* rdf) {
    char* c = ldns_rdf2str(rdf);
    std::string s = c != nullptr ? c : "?";
    free(c);  // NOLINT(cppcoreguidelines-no-malloc): ldns allocates with malloc
    while (!s.empty() && s.back() == ' ') s.pop_back();  // a type bitmap ends in one
    return s;
  };
  auto type_text = [](ldns_rr_type t) {
    char* c = ldns_rr_type2str(t);
    std::string s = c != nullptr ? c : "?";
    free(c);  // NOLINT(cppcoreguidelines-no-malloc): ldns allocates with malloc
    return s;
  };
  const std::pair<const char*, ldns_rr_list*> sections[] = {{"an", ldns_pkt_answer(pkt)},
                                                            {"au", ldns_pkt_authority(pkt)},
                                                            {"ad", ldns_pkt_additional(pkt)}};
  for (const auto& [tag, list] : sections) {
    // RRsets by (owner, type), in order of first appearance.
    std::vector<std::pair<std::string, ldns_rr_type>> order;
    for (std::size_t i = 0; i < ldns_rr_list_rr_count(list); ++i) {
      ldns_rr* rr = ldns_rr_list_rr(list, i);
      ldns_rr_type t = ldns_rr_get_type(rr);
      if (t == LDNS_RR_TYPE_RRSIG) t = ldns_rdf2rr_type(ldns_rr_rrsig_typecovered(rr));
      ldns_dname2canonical(ldns_rr_owner(rr));
      std::pair<std::string, ldns_rr_type> id{text(ldns_rr_owner(rr)), t};
      if (std::find(order.begin(), order.end(), id) == order.end()) order.push_back(id);
    }
    for (const auto& [owner, t] : order) {
      ldns_rr_list* set = ldns_rr_list_new();
      std::vector<ldns_rr*> sigs;
      std::string detail;
      for (std::size_t i = 0; i < ldns_rr_list_rr_count(list); ++i) {
        ldns_rr* rr = ldns_rr_list_rr(list, i);
        if (text(ldns_rr_owner(rr)) != owner) continue;
        if (ldns_rr_get_type(rr) == LDNS_RR_TYPE_RRSIG) {
          if (ldns_rdf2rr_type(ldns_rr_rrsig_typecovered(rr)) == t) sigs.push_back(rr);
        } else if (ldns_rr_get_type(rr) == t) {
          ldns_rr_list_push_rr(set, rr);
          if (t == LDNS_RR_TYPE_NSEC) {
            detail += " " + text(ldns_rr_rdf(rr, 0)) + " " + text(ldns_rr_rdf(rr, 1));
          }
        }
      }
      std::string line = std::string(tag) + " " + owner + " " + type_text(t) + detail;
      for (std::size_t k = 0; k < sigs.size(); ++k) {
        line += (k == 0 ? " sig:" : ",") +
                std::to_string(ldns_rdf2native_int16(ldns_rr_rrsig_keytag(sigs[k])));
        ldns_status s = ldns_rr_list_rr_count(set) == 0
                            ? LDNS_STATUS_ERR
                            : ldns_verify_rrsig_keylist_time(set, sigs[k], keys, when, nullptr);
        if (s != LDNS_STATUS_OK) {
          out.errors.push_back(line + ": " + ldns_get_errorstr_by_id(s));
        }
      }
      out.rrsets += (out.rrsets.empty() ? "" : "\n") + line;
      ldns_rr_list_free(set);  // the records belong to the packet
    }
  }
  ldns_rr_list_deep_free(keys);
  ldns_pkt_free(pkt);
  return out;
}

}  // namespace herald::dns::test
