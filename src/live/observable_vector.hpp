// ObservableVector: a vector whose every mutation is published as a diff.
//
// Contract:
// - Each mutating call that changes the vector emits exactly one batch with
//   the diff describing it, to every live subscriber; a call that changes
//   nothing (append of nothing, clear or truncate that removes nothing, an
//   empty or rolled-back transaction) emits nothing.
// - A Transaction collects any number of mutations and publishes them as one
//   batch on commit(); destroying it uncommitted rolls everything back and
//   publishes nothing. While a transaction is open the vector itself must not
//   be mutated (asserted): the transaction works on a copy and commit()
//   replaces the vector's values with it.
// - subscribe() returns the current values and a Subscriber. Applying the
//   subscriber's batches, in order, to those values reproduces the vector.
//   Each subscriber has a bounded queue of `buffer_capacity` batches; one that
//   falls behind gets a single Reset of the current values in place of its
//   backlog (detail/channel.hpp).
// - Single-threaded: a vector and its subscribers live on one shard.
//
// Index-taking and popping calls come in pairs: `insert` asserts its
// precondition, `try_insert` returns a DiffError instead.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "live/detail/channel.hpp"
#include "live/detail/nth.hpp"
#include "live/diff.hpp"

namespace herald::live {

template <class T>
class Subscriber {
 public:
  Subscriber() = default;
  explicit Subscriber(std::shared_ptr<detail::Channel<T>> channel) : channel_(std::move(channel)) {}
  Subscriber(Subscriber&&) noexcept = default;
  Subscriber& operator=(Subscriber&& other) noexcept {
    if (this != &other) {
      detach();
      channel_ = std::move(other.channel_);
    }
    return *this;
  }
  Subscriber(const Subscriber&) = delete;
  Subscriber& operator=(const Subscriber&) = delete;
  ~Subscriber() { detach(); }

  // Moves the oldest queued batch into `out` (replacing its contents, reusing
  // its storage). False when nothing is queued.
  [[nodiscard]] bool next(DiffBatch<T>& out) { return channel_ && channel_->pop(out); }
  [[nodiscard]] std::size_t queued() const { return channel_ ? channel_->size() : 0; }
  // How many times this subscriber fell behind and got a Reset instead.
  [[nodiscard]] std::uint64_t lag_resets() const { return channel_ ? channel_->lag_resets() : 0; }
  // True once the vector is gone and everything queued has been read.
  [[nodiscard]] bool finished() const { return !channel_ || (channel_->closed && queued() == 0); }

 private:
  void detach() {
    if (channel_) channel_->detached = true;
    channel_.reset();
  }
  std::shared_ptr<detail::Channel<T>> channel_;
};

template <class T>
struct Subscription {
  std::vector<T> values;
  Subscriber<T> subscriber;
};

template <class T>
class Transaction;

template <class T>
class ObservableVector {
 public:
  static constexpr std::size_t kDefaultBufferCapacity = 64;

  explicit ObservableVector(std::size_t buffer_capacity = kDefaultBufferCapacity)
      : capacity_(buffer_capacity) {}
  ObservableVector(const ObservableVector&) = delete;
  ObservableVector& operator=(const ObservableVector&) = delete;
  ~ObservableVector() {
    for (auto& c : channels_) c->closed = true;
  }

  [[nodiscard]] Subscription<T> subscribe() {
    auto channel = std::make_shared<detail::Channel<T>>(capacity_);
    channels_.push_back(channel);
    return {values_, Subscriber<T>(std::move(channel))};
  }

  [[nodiscard]] const std::vector<T>& values() const { return values_; }
  [[nodiscard]] std::size_t size() const { return values_.size(); }
  [[nodiscard]] bool empty() const { return values_.empty(); }
  [[nodiscard]] const T& operator[](std::size_t i) const { return values_[i]; }

  void append(std::vector<T> vs) {
    if (vs.empty()) return;
    values_.insert(values_.end(), vs.begin(), vs.end());
    publish(VectorDiff<T>::append(std::move(vs)));
  }
  void clear() {
    if (values_.empty()) return;
    values_.clear();
    publish(VectorDiff<T>::clear());
  }
  void push_front(T v) {
    values_.insert(values_.begin(), v);
    publish(VectorDiff<T>::push_front(std::move(v)));
  }
  void push_back(T v) {
    values_.push_back(v);
    publish(VectorDiff<T>::push_back(std::move(v)));
  }
  std::optional<T> pop_front() {
    if (values_.empty()) return std::nullopt;
    T v = std::move(values_.front());
    values_.erase(values_.begin());
    publish(VectorDiff<T>::pop_front());
    return v;
  }
  std::optional<T> pop_back() {
    if (values_.empty()) return std::nullopt;
    T v = std::move(values_.back());
    values_.pop_back();
    publish(VectorDiff<T>::pop_back());
    return v;
  }
  [[nodiscard]] DiffError try_insert(std::size_t i, T v) {
    if (i > values_.size()) return DiffError::index_out_of_range;
    values_.insert(detail::nth(values_.begin(), i), v);
    publish(VectorDiff<T>::insert(i, std::move(v)));
    return DiffError::ok;
  }
  void insert(std::size_t i, T v) {
    [[maybe_unused]] const DiffError e = try_insert(i, std::move(v));
    assert(e == DiffError::ok);
  }
  // Replaces values_[i]; the old value is moved into `old` when given.
  [[nodiscard]] DiffError try_set(std::size_t i, T v, T* old = nullptr) {
    if (i >= values_.size()) return DiffError::index_out_of_range;
    if (old != nullptr) *old = std::move(values_[i]);
    values_[i] = v;
    publish(VectorDiff<T>::set(i, std::move(v)));
    return DiffError::ok;
  }
  void set(std::size_t i, T v) {
    [[maybe_unused]] const DiffError e = try_set(i, std::move(v));
    assert(e == DiffError::ok);
  }
  [[nodiscard]] DiffError try_remove(std::size_t i, T* removed = nullptr) {
    if (i >= values_.size()) return DiffError::index_out_of_range;
    if (removed != nullptr) *removed = std::move(values_[i]);
    values_.erase(detail::nth(values_.begin(), i));
    publish(VectorDiff<T>::remove(i));
    return DiffError::ok;
  }
  T remove(std::size_t i) {
    assert(i < values_.size());
    T v{};
    [[maybe_unused]] const DiffError e = try_remove(i, &v);
    return v;
  }
  // Shortens to `length`; a length >= size() changes nothing and emits nothing.
  void truncate(std::size_t length) {
    if (length >= values_.size()) return;
    values_.erase(detail::nth(values_.begin(), length), values_.end());
    publish(VectorDiff<T>::truncate(length));
  }
  // Always emits (a Reset is a statement of the whole state, even if equal).
  void reset(std::vector<T> vs) {
    values_ = vs;
    publish(VectorDiff<T>::reset(std::move(vs)));
  }

  [[nodiscard]] Transaction<T> transaction();

  [[nodiscard]] std::size_t subscriber_count() const {
    std::size_t n = 0;
    for (const auto& c : channels_) n += c->detached ? 0 : 1;
    return n;
  }

 private:
  friend class Transaction<T>;

  void publish(VectorDiff<T> d) {
    assert(!in_transaction_);
    one_.clear();
    one_.push_back(std::move(d));
    publish_batch(one_);
  }

  void publish_batch(const DiffBatch<T>& batch) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < channels_.size(); ++i) {
      if (channels_[i]->detached) continue;
      channels_[i]->push(batch, values_);
      if (kept != i) channels_[kept] = std::move(channels_[i]);
      ++kept;
    }
    channels_.resize(kept);
  }

  std::vector<T> values_;
  std::vector<std::shared_ptr<detail::Channel<T>>> channels_;
  DiffBatch<T> one_;  // reused single-diff batch: no allocation per mutation once warm
  std::size_t capacity_;
  bool in_transaction_ = false;
};

// A batch of mutations published as one message on commit(); rolled back if
// destroyed uncommitted. Works on a copy of the values (O(n) to open), so the
// vector is never observed half-updated and rollback is free.
template <class T>
class Transaction {
 public:
  explicit Transaction(ObservableVector<T>& parent) : parent_(&parent), values_(parent.values_) {
    assert(!parent.in_transaction_);
    parent.in_transaction_ = true;
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  Transaction(Transaction&& o) noexcept
      : parent_(std::exchange(o.parent_, nullptr)),
        values_(std::move(o.values_)),
        batch_(std::move(o.batch_)) {}
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction() {
    if (parent_ != nullptr) parent_->in_transaction_ = false;  // rollback
  }

  [[nodiscard]] const std::vector<T>& values() const { return values_; }
  [[nodiscard]] std::size_t size() const { return values_.size(); }

  void append(std::vector<T> vs) {
    if (vs.empty()) return;
    values_.insert(values_.end(), vs.begin(), vs.end());
    batch_.push_back(VectorDiff<T>::append(std::move(vs)));
  }
  void clear() {
    if (values_.empty()) return;
    values_.clear();
    batch_.push_back(VectorDiff<T>::clear());
  }
  void push_front(T v) {
    values_.insert(values_.begin(), v);
    batch_.push_back(VectorDiff<T>::push_front(std::move(v)));
  }
  void push_back(T v) {
    values_.push_back(v);
    batch_.push_back(VectorDiff<T>::push_back(std::move(v)));
  }
  bool pop_front() {
    if (values_.empty()) return false;
    values_.erase(values_.begin());
    batch_.push_back(VectorDiff<T>::pop_front());
    return true;
  }
  bool pop_back() {
    if (values_.empty()) return false;
    values_.pop_back();
    batch_.push_back(VectorDiff<T>::pop_back());
    return true;
  }
  [[nodiscard]] DiffError try_insert(std::size_t i, T v) {
    if (i > values_.size()) return DiffError::index_out_of_range;
    values_.insert(detail::nth(values_.begin(), i), v);
    batch_.push_back(VectorDiff<T>::insert(i, std::move(v)));
    return DiffError::ok;
  }
  [[nodiscard]] DiffError try_set(std::size_t i, T v) {
    if (i >= values_.size()) return DiffError::index_out_of_range;
    values_[i] = v;
    batch_.push_back(VectorDiff<T>::set(i, std::move(v)));
    return DiffError::ok;
  }
  [[nodiscard]] DiffError try_remove(std::size_t i) {
    if (i >= values_.size()) return DiffError::index_out_of_range;
    values_.erase(detail::nth(values_.begin(), i));
    batch_.push_back(VectorDiff<T>::remove(i));
    return DiffError::ok;
  }
  void truncate(std::size_t length) {
    if (length >= values_.size()) return;
    values_.erase(detail::nth(values_.begin(), length), values_.end());
    batch_.push_back(VectorDiff<T>::truncate(length));
  }
  void reset(std::vector<T> vs) {
    values_ = vs;
    batch_.push_back(VectorDiff<T>::reset(std::move(vs)));
  }

  // Publishes the batch (nothing if empty) and ends the transaction.
  void commit() {
    assert(parent_ != nullptr);
    ObservableVector<T>& p = *std::exchange(parent_, nullptr);
    p.in_transaction_ = false;
    if (batch_.empty()) return;
    p.values_ = std::move(values_);
    p.publish_batch(batch_);
  }
  // Ends the transaction, publishing nothing and leaving the vector as it was.
  void rollback() {
    if (parent_ != nullptr) std::exchange(parent_, nullptr)->in_transaction_ = false;
  }

 private:
  ObservableVector<T>* parent_;
  std::vector<T> values_;
  DiffBatch<T> batch_;
};

template <class T>
Transaction<T> ObservableVector<T>::transaction() {
  return Transaction<T>(*this);
}

}  // namespace herald::live
