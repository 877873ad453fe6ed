// SPDX-License-Identifier: Apache-2.0
//
// The JSON value type, parser and writer of the daemon's control protocol.

#include "ebpf-gpu/Daemon/Json.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ebpfgpu::tools::json {

namespace {

constexpr unsigned MaxDepth = 64;

class Parser {
public:
  explicit Parser(const std::string &T) : T(T) {}

  Expected<Value> document() {
    skipSpace();
    Value V;
    if (MaybeError E = value(V, 0))
      return std::move(*E);
    skipSpace();
    if (Pos != T.size())
      return fail("the end of the document");
    return V;
  }

private:
  Error fail(const std::string &Expected) const {
    std::string Found = Pos < T.size() ? "'" + std::string(1, T[Pos]) + "'" : "the end";
    return Error("malformed JSON at byte " + std::to_string(Pos) + ": expected " + Expected +
                 ", found " + Found);
  }
  void skipSpace() {
    while (Pos < T.size() && (T[Pos] == ' ' || T[Pos] == '\t' || T[Pos] == '\n' || T[Pos] == '\r'))
      ++Pos;
  }
  bool literal(const char *Word) {
    size_t N = std::char_traits<char>::length(Word);
    if (T.compare(Pos, N, Word) != 0)
      return false;
    Pos += N;
    return true;
  }

  MaybeError value(Value &Out, unsigned Depth) {
    if (Depth > MaxDepth)
      return Error("malformed JSON: nested deeper than " + std::to_string(MaxDepth));
    if (Pos >= T.size())
      return fail("a value");
    char C = T[Pos];
    if (C == '{')
      return object(Out, Depth);
    if (C == '[')
      return array(Out, Depth);
    if (C == '"') {
      std::string S;
      if (MaybeError E = string(S))
        return E;
      Out = Value(std::move(S));
      return std::nullopt;
    }
    if (literal("true")) {
      Out = Value(true);
      return std::nullopt;
    }
    if (literal("false")) {
      Out = Value(false);
      return std::nullopt;
    }
    if (literal("null")) {
      Out = Value();
      return std::nullopt;
    }
    return number(Out);
  }

  MaybeError object(Value &Out, unsigned Depth) {
    Out = Value::object();
    ++Pos; // '{'
    skipSpace();
    if (Pos < T.size() && T[Pos] == '}') {
      ++Pos;
      return std::nullopt;
    }
    while (true) {
      skipSpace();
      if (Pos >= T.size() || T[Pos] != '"')
        return fail("a member name in quotes");
      std::string Key;
      if (MaybeError E = string(Key))
        return E;
      skipSpace();
      if (Pos >= T.size() || T[Pos] != ':')
        return fail("':'");
      ++Pos;
      skipSpace();
      Value V;
      if (MaybeError E = value(V, Depth + 1))
        return E;
      Out.set(Key, std::move(V));
      skipSpace();
      if (Pos < T.size() && T[Pos] == ',') {
        ++Pos;
        continue;
      }
      if (Pos < T.size() && T[Pos] == '}') {
        ++Pos;
        return std::nullopt;
      }
      return fail("',' or '}'");
    }
  }

  MaybeError array(Value &Out, unsigned Depth) {
    Out = Value::array();
    ++Pos; // '['
    skipSpace();
    if (Pos < T.size() && T[Pos] == ']') {
      ++Pos;
      return std::nullopt;
    }
    while (true) {
      skipSpace();
      Value V;
      if (MaybeError E = value(V, Depth + 1))
        return E;
      Out.push(std::move(V));
      skipSpace();
      if (Pos < T.size() && T[Pos] == ',') {
        ++Pos;
        continue;
      }
      if (Pos < T.size() && T[Pos] == ']') {
        ++Pos;
        return std::nullopt;
      }
      return fail("',' or ']'");
    }
  }

  static void utf8(std::string &S, uint32_t Cp) {
    if (Cp < 0x80) {
      S += char(Cp);
    } else if (Cp < 0x800) {
      S += char(0xc0 | (Cp >> 6));
      S += char(0x80 | (Cp & 0x3f));
    } else if (Cp < 0x10000) {
      S += char(0xe0 | (Cp >> 12));
      S += char(0x80 | ((Cp >> 6) & 0x3f));
      S += char(0x80 | (Cp & 0x3f));
    } else {
      S += char(0xf0 | (Cp >> 18));
      S += char(0x80 | ((Cp >> 12) & 0x3f));
      S += char(0x80 | ((Cp >> 6) & 0x3f));
      S += char(0x80 | (Cp & 0x3f));
    }
  }

  bool hex4(uint32_t &Cp) {
    if (Pos + 4 > T.size())
      return false;
    Cp = 0;
    for (int I = 0; I < 4; ++I) {
      char C = T[Pos++];
      Cp <<= 4;
      if (C >= '0' && C <= '9')
        Cp |= uint32_t(C - '0');
      else if (C >= 'a' && C <= 'f')
        Cp |= uint32_t(C - 'a' + 10);
      else if (C >= 'A' && C <= 'F')
        Cp |= uint32_t(C - 'A' + 10);
      else
        return false;
    }
    return true;
  }

  MaybeError string(std::string &S) {
    ++Pos; // '"'
    while (Pos < T.size()) {
      unsigned char C = static_cast<unsigned char>(T[Pos]);
      if (C == '"') {
        ++Pos;
        return std::nullopt;
      }
      if (C < 0x20)
        return fail("no control character inside a string");
      if (C != '\\') {
        S += char(C);
        ++Pos;
        continue;
      }
      if (++Pos >= T.size())
        break;
      char E = T[Pos++];
      switch (E) {
      case '"':
        S += '"';
        break;
      case '\\':
        S += '\\';
        break;
      case '/':
        S += '/';
        break;
      case 'b':
        S += '\b';
        break;
      case 'f':
        S += '\f';
        break;
      case 'n':
        S += '\n';
        break;
      case 'r':
        S += '\r';
        break;
      case 't':
        S += '\t';
        break;
      case 'u': {
        uint32_t Cp;
        if (!hex4(Cp))
          return fail("four hex digits after \\u");
        if (Cp >= 0xd800 && Cp < 0xdc00) {
          uint32_t Low;
          if (!literal("\\u") || !hex4(Low) || Low < 0xdc00 || Low >= 0xe000)
            return fail("the low half of a surrogate pair");
          Cp = 0x10000 + ((Cp - 0xd800) << 10) + (Low - 0xdc00);
        }
        utf8(S, Cp);
        break;
      }
      default:
        --Pos;
        return fail("an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)");
      }
    }
    return fail("the closing '\"'");
  }

  MaybeError number(Value &Out) {
    size_t Start = Pos;
    auto Digits = [&] {
      size_t From = Pos;
      while (Pos < T.size() && T[Pos] >= '0' && T[Pos] <= '9')
        ++Pos;
      return Pos > From;
    };
    if (Pos < T.size() && T[Pos] == '-')
      ++Pos;
    if (Pos < T.size() && T[Pos] == '0')
      ++Pos;
    else if (!Digits())
      return (Pos = Start, fail("a value"));
    if (Pos < T.size() && T[Pos] == '.') {
      ++Pos;
      if (!Digits())
        return fail("digits after '.'");
    }
    if (Pos < T.size() && (T[Pos] == 'e' || T[Pos] == 'E')) {
      ++Pos;
      if (Pos < T.size() && (T[Pos] == '+' || T[Pos] == '-'))
        ++Pos;
      if (!Digits())
        return fail("digits in the exponent");
    }
    Out = Value::fromNumberText(T.substr(Start, Pos - Start));
    return std::nullopt;
  }

  const std::string &T;
  size_t Pos = 0;
};

} // namespace

Value::Value(double V) : K(Kind::Number) {
  if (!std::isfinite(V)) {
    K = Kind::Null;
    return;
  }
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), "%.6f", V);
  Text = Buf;
}

Value Value::fromNumberText(std::string T) {
  Value V;
  V.K = Kind::Number;
  V.Text = std::move(T);
  return V;
}

std::optional<uint64_t> Value::u64() const {
  if (K != Kind::Number || Text.empty() || Text[0] == '-' ||
      Text.find_first_of(".eE") != std::string::npos)
    return std::nullopt;
  errno = 0;
  char *End = nullptr;
  unsigned long long N = std::strtoull(Text.c_str(), &End, 10);
  if (errno || *End)
    return std::nullopt;
  return uint64_t(N);
}

std::optional<int64_t> Value::i64() const {
  if (K != Kind::Number || Text.find_first_of(".eE") != std::string::npos)
    return std::nullopt;
  errno = 0;
  char *End = nullptr;
  long long N = std::strtoll(Text.c_str(), &End, 10);
  if (errno || *End)
    return std::nullopt;
  return int64_t(N);
}

double Value::number() const { return K == Kind::Number ? std::strtod(Text.c_str(), nullptr) : 0; }

const Value *Value::get(const std::string &Key) const {
  for (const auto &[Name, V] : Members)
    if (Name == Key)
      return &V;
  return nullptr;
}

Value &Value::set(const std::string &Key, Value V) {
  for (auto &[Name, Old] : Members)
    if (Name == Key) {
      Old = std::move(V);
      return *this;
    }
  Members.emplace_back(Key, std::move(V));
  return *this;
}

std::string quote(const std::string &S) {
  std::string Out = "\"";
  for (char C : S) {
    unsigned char U = static_cast<unsigned char>(C);
    if (C == '"' || C == '\\') {
      Out += '\\';
      Out += C;
    } else if (C == '\n') {
      Out += "\\n";
    } else if (C == '\t') {
      Out += "\\t";
    } else if (U < 0x20) {
      char Buf[8];
      std::snprintf(Buf, sizeof(Buf), "\\u%04x", U);
      Out += Buf;
    } else {
      Out += C;
    }
  }
  return Out + "\"";
}

void Value::writeTo(std::string &Out, bool Pretty, unsigned Depth) const {
  auto Newline = [&](unsigned D) {
    if (Pretty)
      Out += "\n" + std::string(2 * D, ' ');
  };
  switch (K) {
  case Kind::Null:
    Out += "null";
    return;
  case Kind::Bool:
    Out += Flag ? "true" : "false";
    return;
  case Kind::Number:
    Out += Text;
    return;
  case Kind::String:
    Out += quote(Text);
    return;
  case Kind::Array:
    Out += '[';
    for (size_t I = 0; I < Items.size(); ++I) {
      Out += I ? (Pretty ? "," : ", ") : "";
      Newline(Depth + 1);
      Items[I].writeTo(Out, Pretty, Depth + 1);
    }
    if (!Items.empty())
      Newline(Depth);
    Out += ']';
    return;
  case Kind::Object:
    Out += '{';
    for (size_t I = 0; I < Members.size(); ++I) {
      Out += I ? (Pretty ? "," : ", ") : "";
      Newline(Depth + 1);
      Out += quote(Members[I].first) + ": ";
      Members[I].second.writeTo(Out, Pretty, Depth + 1);
    }
    if (!Members.empty())
      Newline(Depth);
    Out += '}';
    return;
  }
}

std::string Value::write(bool Pretty) const {
  std::string Out;
  writeTo(Out, Pretty, 0);
  return Out;
}

Expected<Value> parse(const std::string &Text) { return Parser(Text).document(); }

} // namespace ebpfgpu::tools::json
