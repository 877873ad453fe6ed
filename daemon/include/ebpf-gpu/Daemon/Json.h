// SPDX-License-Identifier: Apache-2.0
//
// The small JSON the daemon's control protocol needs: a value type (null,
// bool, number, string, array, object with its members in order), a strict
// parser of one document (RFC 8259; errors name the byte offset) and a
// compact writer. Numbers keep their text so that 64-bit counters and ids
// round-trip exactly. Not a general library: no streaming, nesting at most
// 64 deep, documents of at most a few MiB.

#ifndef EBPF_GPU_DAEMON_JSON_H
#define EBPF_GPU_DAEMON_JSON_H

#include "ebpf-gpu/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ebpfgpu::tools::json {

class Value {
public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool B) : K(Kind::Bool), Flag(B) {}
  Value(int V) : Value(int64_t(V)) {}
  Value(unsigned V) : Value(uint64_t(V)) {}
  Value(int64_t V) : K(Kind::Number), Text(std::to_string(V)) {}
  Value(uint64_t V) : K(Kind::Number), Text(std::to_string(V)) {}
  Value(long long V) : Value(int64_t(V)) {}
  Value(unsigned long long V) : Value(uint64_t(V)) {}
  Value(double V);
  Value(const char *S) : K(Kind::String), Text(S) {}
  Value(std::string S) : K(Kind::String), Text(std::move(S)) {}

  static Value array() {
    Value V;
    V.K = Kind::Array;
    return V;
  }
  static Value object() {
    Value V;
    V.K = Kind::Object;
    return V;
  }
  /// A number from its JSON text (checked by the parser, not here).
  static Value fromNumberText(std::string T);

  Kind kind() const { return K; }
  bool isNull() const { return K == Kind::Null; }
  bool isString() const { return K == Kind::String; }
  bool isNumber() const { return K == Kind::Number; }
  bool isBool() const { return K == Kind::Bool; }
  bool isArray() const { return K == Kind::Array; }
  bool isObject() const { return K == Kind::Object; }

  bool boolean() const { return Flag; }
  /// Strings: the text; numbers: the number as written.
  const std::string &text() const { return Text; }
  /// The number as an unsigned or signed integer; nothing when it is not
  /// one (a fraction, an exponent, out of range, not a number).
  std::optional<uint64_t> u64() const;
  std::optional<int64_t> i64() const;
  double number() const;

  /// Arrays.
  std::vector<Value> &items() { return Items; }
  const std::vector<Value> &items() const { return Items; }
  Value &push(Value V) {
    Items.push_back(std::move(V));
    return Items.back();
  }

  /// Objects: the member named `Key`, or null when there is none.
  const Value *get(const std::string &Key) const;
  /// Sets (replaces or appends) a member; returns *this for chaining.
  Value &set(const std::string &Key, Value V);
  const std::vector<std::pair<std::string, Value>> &members() const { return Members; }

  /// Compact JSON (no newlines), or indented by two spaces.
  std::string write(bool Pretty = false) const;

private:
  void writeTo(std::string &Out, bool Pretty, unsigned Depth) const;

  Kind K = Kind::Null;
  bool Flag = false;
  std::string Text;
  std::vector<Value> Items;
  std::vector<std::pair<std::string, Value>> Members;
};

/// Parses one JSON document (white space around it allowed). Errors say what
/// was expected and at which byte.
Expected<Value> parse(const std::string &Text);

/// `S` as a JSON string literal, quotes included.
std::string quote(const std::string &S);

} // namespace ebpfgpu::tools::json

#endif // EBPF_GPU_DAEMON_JSON_H
