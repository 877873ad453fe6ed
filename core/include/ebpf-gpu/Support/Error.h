// SPDX-License-Identifier: Apache-2.0
//
// A small error type for the parts of ebpf-gpu that do not link LLVM (decoder,
// object reader, platform, verifier, loader). It carries one human-readable
// message; each layer prefixes context ("prog.o: section xdp: pc 12: ...").
// Library code returns these; only tools print them.

#ifndef EBPF_GPU_SUPPORT_ERROR_H
#define EBPF_GPU_SUPPORT_ERROR_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace ebpfgpu {

/// A failure with a message. An Error is always a failure; success is
/// expressed by Expected<T> holding a value or by std::optional<Error>.
class Error {
public:
  explicit Error(std::string Message) : Message(std::move(Message)) {}

  const std::string &message() const { return Message; }

  /// Returns this error with "Context: " in front of the message.
  Error withContext(const std::string &Context) && {
    return Error(Context + ": " + Message);
  }

private:
  std::string Message;
};

/// Either a T or an Error. Check with operator bool before dereferencing.
template <typename T> class Expected {
public:
  Expected(T Value) : Storage(std::move(Value)) {}
  Expected(Error E) : Storage(std::move(E)) {}

  explicit operator bool() const { return Storage.index() == 0; }

  T &operator*() {
    assert(*this && "dereferencing a failed Expected");
    return std::get<0>(Storage);
  }
  const T &operator*() const {
    assert(*this && "dereferencing a failed Expected");
    return std::get<0>(Storage);
  }
  T *operator->() { return &**this; }
  const T *operator->() const { return &**this; }

  const Error &error() const {
    assert(!*this && "asking a successful Expected for its error");
    return std::get<1>(Storage);
  }
  Error takeError() { return std::move(std::get<1>(Storage)); }

private:
  std::variant<T, Error> Storage;
};

/// The result of an operation that returns nothing on success.
using MaybeError = std::optional<Error>;

} // namespace ebpfgpu

#endif // EBPF_GPU_SUPPORT_ERROR_H
