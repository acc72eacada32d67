#pragma once
// Errors as values: every fallible call in Sindri returns a Result.

#include <cassert>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace sindri {

struct Error {
  std::string message;
};

inline Error make_error(std::string message) { return Error{std::move(message)}; }

// A failed call's error on its way out of the function that gives up
// (SINDRI_TRY, SINDRI_CHECK), to become the error of the Result it returns.
template <class E>
struct Propagated {
  E error;
};

template <class E>
Propagated<std::decay_t<E>> propagate(E&& error) {
  return {std::forward<E>(error)};
}

// The error `error` becomes in a function whose Result holds a To. Where To
// cannot be made from it, To's or the error's namespace says how, e.g.
//   ApiError convert_error(std::type_identity<ApiError>, store::DbError);
template <class To, class From>
To convert_propagated(From&& error) {
  if constexpr (std::is_constructible_v<To, From&&>) {
    return To(std::forward<From>(error));
  } else {
    return convert_error(std::type_identity<To>{}, std::forward<From>(error));
  }
}

template <class T, class E = Error>
class Result {
 public:
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}
  Result(E error) : state_(std::in_place_index<1>, std::move(error)) {}
  template <class F>
  Result(Propagated<F> propagated)
      : state_(std::in_place_index<1>, convert_propagated<E>(std::move(propagated.error))) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(state_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(state_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(state_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const E& error() const& {
    assert(!ok());
    return std::get<1>(state_);
  }
  E&& error() && {
    assert(!ok());
    return std::get<1>(std::move(state_));
  }

 private:
  std::variant<T, E> state_;
};

// For calls that produce nothing but may fail.
struct Ok {};
using Status = Result<Ok>;

}  // namespace sindri

// Unwraps a Result into `name`, or returns its error from the enclosing
// function, which returns a Result (of another error type too: see
// convert_propagated).
#define SINDRI_TRY(name, expr)                                                           \
  auto name##_result = (expr);                                                           \
  if (!name##_result.ok()) return ::sindri::propagate(std::move(name##_result).error()); \
  auto name = std::move(name##_result).value()

// Returns a failed Result's error from the enclosing function, as SINDRI_TRY.
#define SINDRI_CHECK(expr)                                                                 \
  do {                                                                                     \
    auto check_result_ = (expr);                                                           \
    if (!check_result_.ok()) return ::sindri::propagate(std::move(check_result_).error()); \
  } while (false)
