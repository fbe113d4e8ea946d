// Status and Result<T>: how every engine function reports failure.
//
// The engine never throws. errno is turned into a Status once, at the Env
// seam, and carried up unchanged, with the operation and the path, so a
// message reads "fdatasync /data/db/Journals/00000000000000000001.journal:
// Input/output error (errno 5)". An OK Status is one null pointer: cheap to
// return on the hot path.
#pragma once

#include <cassert>
#include <memory>
#include <string>
#include <utility>
#include <variant>

namespace fenec {

enum class StatusCode : unsigned char {
  kOk = 0,
  kNotFound,         // no such document, collection or file
  kInvalidArgument,  // bad input: wrong type, unknown field, bad option; nothing changed
  kAlreadyExists,    // a collection of that name exists
  kConstraint,       // a @unique field already holds the value; nothing changed
  kCorruption,       // on-disk bytes fail their checksum or format checks
  kIOError,          // a system call failed (errno() says which way)
  kNoSpace,          // ENOSPC / EDQUOT
  kFailStopped,      // an earlier write or fsync failed: writes refused until reopened
  kClosed,           // the database was closed
  kNotSupported,     // the filesystem or build lacks a feature (hard links, mmap, ...)
  kTooLarge,         // over a limit the engine enforces (fenec/limits.h), named in the message; nothing changed
  kTimedOut,         // a read's deadline passed or it was cancelled (ReadOptions); nothing changed
  kBusy,             // a read that may not wait (NoWaitReads) found the lock taken; nothing read
};

const char* StatusCodeName(StatusCode code);

class Status {
 public:
  Status() = default;  // OK
  Status(const Status& other) : state_(other.state_ ? std::make_unique<State>(*other.state_) : nullptr) {}
  Status& operator=(const Status& other) {
    if (this != &other) state_ = other.state_ ? std::make_unique<State>(*other.state_) : nullptr;
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status OK() { return Status(); }
  // op: the system call or engine step ("pwrite", "open", "recover"); path: the file.
  static Status IOError(std::string op, std::string path, int err);
  static Status FromErrno(std::string op, std::string path, int err);  // ENOSPC -> kNoSpace
  static Status NotFound(std::string msg, std::string path = {});
  static Status InvalidArgument(std::string msg);
  static Status AlreadyExists(std::string msg);
  static Status Constraint(std::string msg);
  static Status Corruption(std::string msg, std::string path = {});
  static Status FailStopped(const Status& cause);
  static Status Closed();
  static Status NotSupported(std::string msg, std::string path = {});
  static Status TooLarge(std::string msg);
  static Status TimedOut(std::string msg);
  static Status Busy(std::string msg);

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return state_ ? state_->code : StatusCode::kOk; }
  int err() const { return state_ ? state_->err : 0; }  // errno, 0 when none
  const std::string& op() const;
  const std::string& path() const;
  const std::string& message() const;  // free text beyond op/path/errno
  std::string ToString() const;        // "OK" or "<code>: <op> <path>: <message> (errno N)"

  bool IsNotFound() const { return code() == StatusCode::kNotFound; }
  bool IsConstraint() const { return code() == StatusCode::kConstraint; }
  bool IsFailStopped() const { return code() == StatusCode::kFailStopped; }
  bool IsTooLarge() const { return code() == StatusCode::kTooLarge; }
  bool IsBusy() const { return code() == StatusCode::kBusy; }
  bool IsNoSpace() const { return code() == StatusCode::kNoSpace; }

 private:
  struct State {
    StatusCode code;
    int err;
    std::string op, path, message;
  };
  Status(StatusCode code, int err, std::string op, std::string path, std::string message);
  std::unique_ptr<State> state_;
};

// Either a T or a non-OK Status. Constructing one from an OK Status is a bug.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::in_place_index<1>, std::move(value)) {}
  Result(Status status) : v_(std::in_place_index<0>, std::move(status)) { assert(!std::get<0>(v_).ok()); }

  bool ok() const { return v_.index() == 1; }
  const Status& status() const {
    static const Status kOkStatus;
    return ok() ? kOkStatus : std::get<0>(v_);
  }
  T& value() & { return std::get<1>(v_); }
  const T& value() const& { return std::get<1>(v_); }
  T&& value() && { return std::get<1>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<Status, T> v_;
};

}  // namespace fenec
