#include "dns/transfer.hpp"

#include <memory>

#include "dns/detail/compression.hpp"
#include "dns/rdata.hpp"

namespace herald::dns {

namespace {

// One message being filled: a header, the question in the first message
// only, records until the next one would not fit.
class MessageWriter {
 public:
  MessageWriter(std::vector<std::uint8_t>& out, const Message& query, std::size_t max)
      : out_(out), query_(query), max_(max) {}

  void add(const Name& owner, RRType type, std::uint32_t ttl, const Rdata& rdata) {
    if (!open_) start();
    std::size_t mark = buf_.size();
    auto map_mark = map_->mark();
    write(owner, type, ttl, rdata);
    if (!w_->overflow()) {
      ++count_;
      return;
    }
    // Did not fit: close this message without it and put it in a new one
    // (a record alone always fits: RDATA <= 65535 and max >= 16384 is the
    // caller's choice, checked by the record's own overflow below).
    w_->truncate(mark);
    map_->rollback(map_mark);
    finish();
    start();
    write(owner, type, ttl, rdata);
    if (!w_->overflow()) ++count_;
  }

  std::size_t finish_all() {
    if (open_) finish();
    return messages_;
  }

 private:
  void start() {
    buf_.clear();
    map_->clear();
    w_ = std::make_unique<Writer>(buf_, max_);
    Header h;
    h.id = query_.header.id;
    h.qr = true;
    h.aa = true;
    h.opcode = query_.header.opcode;
    h.write(*w_);
    if (messages_ == 0) {
      const Question& q = query_.questions.front();
      map_->write_name(*w_, q.qname);
      w_->u16(q.qtype.value);
      w_->u16(q.qclass.value);
    }
    count_ = 0;
    open_ = true;
  }

  void write(const Name& owner, RRType type, std::uint32_t ttl, const Rdata& rdata) {
    map_->write_name(*w_, owner);
    w_->u16(type.value);
    w_->u16(rrclass::IN.value);
    w_->u32(ttl);
    std::size_t len_at = w_->size();
    w_->u16(0);
    rdata_to_wire(type, rdata, *w_, map_.get());
    if (!w_->overflow()) w_->patch_u16(len_at, static_cast<std::uint16_t>(w_->size() - len_at - 2));
  }

  void finish() {
    w_->patch_u16(4, messages_ == 0 ? 1 : 0);
    w_->patch_u16(6, static_cast<std::uint16_t>(count_));
    out_.push_back(static_cast<std::uint8_t>(buf_.size() >> 8));
    out_.push_back(static_cast<std::uint8_t>(buf_.size()));
    out_.insert(out_.end(), buf_.begin(), buf_.end());
    ++messages_;
    open_ = false;
  }

  std::vector<std::uint8_t>& out_;
  const Message& query_;
  std::size_t max_;
  std::vector<std::uint8_t> buf_;
  std::unique_ptr<Writer> w_;
  std::unique_ptr<detail::CompressionMap> map_ = std::make_unique<detail::CompressionMap>();
  std::size_t count_ = 0;
  std::size_t messages_ = 0;
  bool open_ = false;
};

void add_set(MessageWriter& mw, const Name& owner, const RRset& set) {
  for (const Rdata& rd : set.rdatas) mw.add(owner, set.type, set.ttl, rd);
  for (const Rdata& rd : set.sigs) mw.add(owner, type::RRSIG, set.sig_ttl, rd);
}

}  // namespace

std::size_t write_transfer(const Zone& zone, const Message& query, std::vector<std::uint8_t>& out,
                           std::size_t max_message) {
  MessageWriter mw(out, query, max_message);
  const Name& origin = zone.origin();
  const RRset& soa = zone.soa();
  mw.add(origin, type::SOA, soa.ttl, soa.rdatas.front());
  for (const Rdata& rd : soa.sigs) mw.add(origin, type::RRSIG, soa.sig_ttl, rd);
  for (std::uint32_t i = 0; i < zone.node_count(); ++i) {
    const Node& nd = zone.node(i);
    for (const RRset& set : nd.rrsets) {
      if (i == 0 && set.type == type::SOA) continue;  // first and last, apart
      add_set(mw, nd.name, set);
    }
  }
  for (std::size_t i = 0; i < zone.nsec3_count(); ++i) {
    const Nsec3Node& n3 = zone.nsec3_at(i);
    add_set(mw, n3.name, n3.nsec3);
  }
  mw.add(origin, type::SOA, soa.ttl, soa.rdatas.front());
  return mw.finish_all();
}

}  // namespace herald::dns
