// ldns (Debian's libldns, NLnet Labs) as the independent verifier of the
// signatures the online signer makes: its own zone-text parser, its own
// canonical form (ldns_rr2canonical) and its own OpenSSL calls. A signature
// it accepts is one a validator rebuilds from the records alone.
#pragma once

#include <ldns/ldns.h>

#include <ctime>
#include <string>
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

}  // namespace herald::dns::test
