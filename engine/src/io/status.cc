#include "fenec/status.h"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace fenec {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kNotFound: return "NotFound";
    case StatusCode::kInvalidArgument: return "InvalidArgument";
    case StatusCode::kAlreadyExists: return "AlreadyExists";
    case StatusCode::kConstraint: return "Constraint";
    case StatusCode::kCorruption: return "Corruption";
    case StatusCode::kIOError: return "IOError";
    case StatusCode::kNoSpace: return "NoSpace";
    case StatusCode::kFailStopped: return "FailStopped";
    case StatusCode::kClosed: return "Closed";
    case StatusCode::kNotSupported: return "NotSupported";
    case StatusCode::kTooLarge: return "TooLarge";
    case StatusCode::kTimedOut: return "TimedOut";
    case StatusCode::kBusy: return "Busy";
  }
  return "Unknown";
}

Status::Status(StatusCode code, int err, std::string op, std::string path, std::string message)
    : state_(std::make_unique<State>(State{code, err, std::move(op), std::move(path), std::move(message)})) {}

static const std::string kEmpty;

const std::string& Status::op() const { return state_ ? state_->op : kEmpty; }
const std::string& Status::path() const { return state_ ? state_->path : kEmpty; }
const std::string& Status::message() const { return state_ ? state_->message : kEmpty; }

Status Status::IOError(std::string op, std::string path, int err) {
  return Status(StatusCode::kIOError, err, std::move(op), std::move(path), std::strerror(err));
}

Status Status::FromErrno(std::string op, std::string path, int err) {
  StatusCode code = StatusCode::kIOError;
  if (err == ENOSPC || err == EDQUOT) code = StatusCode::kNoSpace;
  if (err == ENOENT) code = StatusCode::kNotFound;
  if (err == EEXIST) code = StatusCode::kAlreadyExists;
  if (err == EXDEV || err == EOPNOTSUPP || err == ENOSYS) code = StatusCode::kNotSupported;
  return Status(code, err, std::move(op), std::move(path), std::strerror(err));
}

Status Status::NotFound(std::string msg, std::string path) {
  return Status(StatusCode::kNotFound, 0, {}, std::move(path), std::move(msg));
}
Status Status::InvalidArgument(std::string msg) {
  return Status(StatusCode::kInvalidArgument, 0, {}, {}, std::move(msg));
}
Status Status::AlreadyExists(std::string msg) {
  return Status(StatusCode::kAlreadyExists, 0, {}, {}, std::move(msg));
}
Status Status::Constraint(std::string msg) {
  return Status(StatusCode::kConstraint, 0, {}, {}, std::move(msg));
}
Status Status::Corruption(std::string msg, std::string path) {
  return Status(StatusCode::kCorruption, 0, {}, std::move(path), std::move(msg));
}
Status Status::FailStopped(const Status& cause) {
  // Keeps the first error's errno, op and path: the reason writes stopped is what the user needs.
  return Status(StatusCode::kFailStopped, cause.err(), cause.op(), cause.path(),
                "writes refused until reopened after: " + cause.ToString());
}
Status Status::Closed() { return Status(StatusCode::kClosed, 0, {}, {}, "database is closed"); }
Status Status::NotSupported(std::string msg, std::string path) {
  return Status(StatusCode::kNotSupported, 0, {}, std::move(path), std::move(msg));
}
Status Status::TooLarge(std::string msg) { return Status(StatusCode::kTooLarge, 0, {}, {}, std::move(msg)); }
Status Status::TimedOut(std::string msg) { return Status(StatusCode::kTimedOut, 0, {}, {}, std::move(msg)); }
Status Status::Busy(std::string msg) { return Status(StatusCode::kBusy, 0, {}, {}, std::move(msg)); }

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out = StatusCodeName(state_->code);
  out += ": ";
  if (!state_->op.empty()) out += state_->op + " ";
  if (!state_->path.empty()) out += state_->path;
  if (!state_->op.empty() || !state_->path.empty()) out += ": ";
  out += state_->message;
  if (state_->err != 0 && state_->code != StatusCode::kFailStopped) out += fmt::format(" (errno {})", state_->err);
  return out;
}

}  // namespace fenec
