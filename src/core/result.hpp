// Result<T, E>: a value, or the error that stopped it. The one convention
// every module uses for an operation that fails in an expected way: bad
// input (a DNS packet, a zone file, an API body), a refused build, a reply
// that does not parse. Exceptions stay for broken invariants and for
// configuration time (a server that cannot start).
//
// C++20 has no std::expected (C++23); this is the part of it we use. E is
// the failing module's own error: dns::Error (a code, the offset where
// decoding stopped, a detail), match::Error (a code with a fixed message), or
// a std::string made where the failure is found, so that the message says
// what and where without the caller rebuilding it.
//
//   Result<Zone, dns::Error> r = parse(...);
//   if (!r) return r.error();        // or report r.error()
//   use(r.value());                  // or *r, r->field
//
// Result<void, E> says only whether it worked. A value converts implicitly
// into a Result, and so does an error when its type differs from T's; where
// they are the same type (Result<std::string, std::string>), an error is
// spelled `Fail{e}`.
//
// Header-only and dependency-free: the engines (match, live, dns), which do
// not link herald::core, include it through herald::result.
#pragma once

#include <cassert>
#include <type_traits>
#include <utility>
#include <variant>

namespace herald {

// An error on its way into a Result, for when T and E are the same type.
template <class E>
struct Fail {
  E error;
};
template <class E>
Fail(E) -> Fail<E>;

template <class T, class E>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(E error)                                                    // NOLINT: implicit by design
      requires(!std::is_same_v<T, E>)
      : v_(std::in_place_index<1>, std::move(error)) {}
  template <class F>
  requires std::is_constructible_v<E, F> Result(Fail<F> f)
      : v_(std::in_place_index<1>, std::move(f.error)) {}  // NOLINT: implicit

  [[nodiscard]] bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  [[nodiscard]] T& value() & { return std::get<0>(v_); }
  [[nodiscard]] const T& value() const& { return std::get<0>(v_); }
  [[nodiscard]] T&& value() && { return std::get<0>(std::move(v_)); }
  [[nodiscard]] T& operator*() & { return value(); }
  [[nodiscard]] const T& operator*() const& { return value(); }
  [[nodiscard]] T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // Only on failure.
  [[nodiscard]] const E& error() const& {
    assert(!ok());
    return std::get<1>(v_);
  }
  [[nodiscard]] E&& error() && {
    assert(!ok());
    return std::get<1>(std::move(v_));
  }

 private:
  std::variant<T, E> v_;
};

template <class E>
class [[nodiscard]] Result<void, E> {
 public:
  Result() = default;
  Result(E error) : error_(std::move(error)), failed_(true) {}  // NOLINT: implicit by design
  template <class F>
  requires std::is_constructible_v<E, F> Result(Fail<F> f)
      : error_(std::move(f.error)), failed_(true) {}  // NOLINT: implicit

  [[nodiscard]] bool ok() const noexcept { return !failed_; }
  explicit operator bool() const noexcept { return ok(); }

  // Only on failure.
  [[nodiscard]] const E& error() const& {
    assert(!ok());
    return error_;
  }
  [[nodiscard]] E&& error() && {
    assert(!ok());
    return std::move(error_);
  }

 private:
  E error_{};
  bool failed_ = false;
};

}  // namespace herald
