// permessage-deflate's pieces on their own: the negotiation of
// ws/deflate_offer.hpp against RFC 7692's examples and the offers it must
// decline, and the codec of ws/deflate_codec.hpp (pieces that concatenate
// into one stream, an inflate bounded by the limit).
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "gateway/ws/deflate_codec.hpp"
#include "gateway/ws/deflate_offer.hpp"

namespace herald::test {
namespace {

using gateway::ws::deflate_piece;
using gateway::ws::inflate_message;
using gateway::ws::InflateStatus;
using gateway::ws::kDeflateTail;
using gateway::ws::negotiate_permessage_deflate;

constexpr std::string_view kPlain =
    "permessage-deflate; server_no_context_takeover; client_no_context_takeover";
constexpr std::string_view kWith15 =
    "permessage-deflate; server_no_context_takeover; client_no_context_takeover; "
    "server_max_window_bits=15";

TEST(DeflateOffer, AcceptsRfc7692Offers) {
  // RFC 7692 7.1.3 and 5.2's offers, as browsers and Node ws send them.
  EXPECT_EQ(negotiate_permessage_deflate("permessage-deflate"), kPlain);
  EXPECT_EQ(negotiate_permessage_deflate("permessage-deflate; client_max_window_bits"), kPlain);
  EXPECT_EQ(negotiate_permessage_deflate("permessage-deflate; client_max_window_bits=10"), kPlain);
  EXPECT_EQ(negotiate_permessage_deflate(
                "permessage-deflate; server_no_context_takeover; client_no_context_takeover"),
            kPlain);
  EXPECT_EQ(negotiate_permessage_deflate("permessage-deflate; server_max_window_bits=15"), kWith15);
  // Quoted values (RFC 6455 9.1), case-insensitive names, spaces.
  EXPECT_EQ(negotiate_permessage_deflate("Permessage-Deflate ;  server_max_window_bits=\"15\""),
            kWith15);
}

TEST(DeflateOffer, DeclinesAnOfferItCannotHonourAndTakesTheNext) {
  // RFC 7692 5.2's example: a server that does not support a smaller window
  // declines the first offer and accepts the second.
  EXPECT_EQ(negotiate_permessage_deflate(
                "permessage-deflate; client_max_window_bits; server_max_window_bits=10, "
                "permessage-deflate; client_max_window_bits"),
            kPlain);
  EXPECT_EQ(negotiate_permessage_deflate("x-webkit-deflate-frame, permessage-deflate"), kPlain);
  EXPECT_EQ(negotiate_permessage_deflate("permessage-deflate; server_max_window_bits=10"),
            std::nullopt);
}

TEST(DeflateOffer, DeclinesMalformedOffers) {
  for (const char* offer : {
           "", "x-webkit-deflate-frame",
           "permessage-deflate; server_max_window_bits",     // needs a value
           "permessage-deflate; server_max_window_bits=16",  // 8..15
           "permessage-deflate; server_max_window_bits=7",
           "permessage-deflate; server_max_window_bits=015",
           "permessage-deflate; client_max_window_bits=16",
           "permessage-deflate; client_max_window_bits=abc",
           "permessage-deflate; server_no_context_takeover=1",  // no value allowed
           "permessage-deflate; client_no_context_takeover; client_no_context_takeover",
           "permessage-deflate; server_max_window_bits=15; server_max_window_bits=15",
           "permessage-deflate; mystery",
           "permessage-deflate; server_max_window_bits=\"15",  // unclosed quote
       }) {
    EXPECT_EQ(negotiate_permessage_deflate(offer), std::nullopt) << offer;
  }
}

TEST(DeflateCodec, PiecesConcatenateIntoOneStream) {
  const std::string a = R"({"push":{"room":"r","pub":{"data":"hello hello hello"}}})";
  const std::string b = "\n";
  const std::string c(5000, 'z');
  const std::string pa = deflate_piece(a);
  const std::string pb = deflate_piece(b);
  const std::string pc = deflate_piece(c);
  for (const std::string* p : {&pa, &pb, &pc}) EXPECT_TRUE(p->ends_with(kDeflateTail));
  std::string message = pa + pb + pc;
  message.resize(message.size() - kDeflateTail.size());
  std::string out;
  ASSERT_EQ(inflate_message(message, 1 << 20, out), InflateStatus::ok);
  EXPECT_EQ(out, a + b + c);
  // The same text gives the same bytes (no state carried between pieces).
  EXPECT_EQ(deflate_piece(a), pa);
  // An empty text is a valid piece too.
  std::string empty = deflate_piece("");
  empty.resize(empty.size() - kDeflateTail.size());
  ASSERT_EQ(inflate_message(empty, 10, out), InflateStatus::ok);
  EXPECT_EQ(out, "");
}

TEST(DeflateCodec, InflateStopsAtTheLimit) {
  const std::string text(100'000, 'a');
  std::string packed = deflate_piece(text);
  packed.resize(packed.size() - kDeflateTail.size());
  std::string out;
  EXPECT_EQ(inflate_message(packed, text.size(), out), InflateStatus::ok);
  EXPECT_EQ(out, text);
  EXPECT_EQ(inflate_message(packed, text.size() - 1, out), InflateStatus::too_big);
  EXPECT_LE(out.size(), text.size());  // never more than the limit and one byte held
  EXPECT_EQ(inflate_message(std::string("\x07\x00", 2), 100, out), InflateStatus::corrupt);
}

}  // namespace
}  // namespace herald::test
