// Records and messages as text: one record per line in zone-file form
// (owner TTL class type rdata, as `ldns-read-zone` prints them), and a
// dig-like dump of a whole message for logs and tests. RDATA text comes from
// rdata.hpp (typed where the type has a layout, else RFC 3597 `\#`).
#pragma once

#include <string>

#include "dns/message.hpp"

namespace herald::dns {

// "www.example.com.\t3600\tIN\tA\t192.0.2.1"
std::string record_to_text(const Record& rr);
void append_record_text(const Record& rr, std::string& out);
std::string question_to_text(const Question& q);
// The header's flags that are set, each after a space: " qr aa rd".
void append_header_flags(const Header& h, std::string& out);
// Header line, flags, EDNS line and the four sections.
std::string message_to_text(const Message& m);

}  // namespace herald::dns
