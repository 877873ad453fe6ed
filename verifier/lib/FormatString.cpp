// SPDX-License-Identifier: Apache-2.0
//
// bpf_snprintf's format strings as the kernel's bpf_bprintf_prepare reads
// them (kernel/bpf/helpers.c); the comments name its rules.

#include "FormatString.h"

#include <cstdio>

namespace ebpfgpu::verifier::detail {

namespace {

bool isSpace(char C) { return C == ' ' || (C >= '\t' && C <= '\r'); }
bool isAlnum(char C) {
  return (C >= '0' && C <= '9') || (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z');
}
bool isPunct(char C) { return C > ' ' && C < 0x7f && !isAlnum(C); }

std::string at(size_t I) { return " at offset " + std::to_string(I); }

} // namespace

const char *formatArgName(FormatArg A) {
  switch (A) {
  case FormatArg::Number:
    return "a number";
  case FormatArg::Char:
    return "%c";
  case FormatArg::String:
    return "%s";
  case FormatArg::Ip4:
    return "%pI4";
  case FormatArg::Ip6:
    return "%pI6";
  }
  return "?";
}

FormatParse parseFormat(const std::vector<uint8_t> &Bytes, size_t From) {
  // The string from `From` to its NUL; reads past it see NULs, as the
  // kernel's do past the end of its zero-terminated string.
  std::string Fmt;
  for (size_t I = From; I < Bytes.size() && Bytes[I]; ++I)
    Fmt.push_back(char(Bytes[I]));
  auto F = [&](size_t I) { return I < Fmt.size() ? Fmt[I] : '\0'; };
  FormatParse P;
  auto Refuse = [&](std::string Why) {
    P.Error = std::move(Why);
    P.Args.clear();
    return P;
  };
  for (size_t I = 0; I < Fmt.size(); ++I) {
    char C = Fmt[I];
    // Printable ASCII or a space.
    if ((C < ' ' || C > '~') && !isSpace(C)) {
      char Hex[8];
      snprintf(Hex, sizeof Hex, "0x%02x", unsigned(uint8_t(C)));
      return Refuse("character " + std::string(Hex) + at(I) + " is neither printable nor a space");
    }
    if (C != '%')
      continue;
    if (F(I + 1) == '%') {
      ++I;
      continue;
    }
    size_t Start = I++;
    // An optional "[0 +-][num]" width.
    while (F(I) == '0' || F(I) == '+' || F(I) == '-' || F(I) == ' ')
      ++I;
    while (F(I) >= '0' && F(I) <= '9')
      ++I;
    if (F(I) == 'p') {
      char N = F(I + 1);
      if (N == 0 || isSpace(N) || isPunct(N))
        return Refuse("%p" + at(Start) +
                      " prints a kernel address (hashed), which has no meaning here");
      if ((N == 'k' || N == 'u') && F(I + 2) == 's') {
        if (N == 'u')
          return Refuse("%pus" + at(Start) + " reads user memory, which XDP programs have none of");
        I += 2;
        P.Args.push_back(FormatArg::String);
        // As %s: what follows is no letter or digit.
        if (F(I + 1) && !isSpace(F(I + 1)) && !isPunct(F(I + 1)))
          return Refuse("%pks" + at(Start) + " is followed by '" + std::string(1, F(I + 1)) +
                        "' (a string conversion ends at a space, punctuation or the end)");
        continue;
      }
      if (N == 'K' || N == 'x' || N == 's' || N == 'S' || N == 'B')
        return Refuse("%p" + std::string(1, N) + at(Start) +
                      " prints a kernel address or symbol, which has no meaning here");
      if ((N != 'i' && N != 'I') || (F(I + 2) != '4' && F(I + 2) != '6'))
        return Refuse("unknown %p conversion '%p" + std::string(1, N) + "'" + at(Start) +
                      " (the kernel takes %pI4 %pi4 %pI6 %pi6 %pks and the address forms)");
      P.Args.push_back(F(I + 2) == '4' ? FormatArg::Ip4 : FormatArg::Ip6);
      I += 2;
      continue;
    }
    if (F(I) == 's') {
      if (F(I + 1) && !isSpace(F(I + 1)) && !isPunct(F(I + 1)))
        return Refuse("%s" + at(Start) + " is followed by '" + std::string(1, F(I + 1)) +
                      "' (a string conversion ends at a space, punctuation or the end)");
      P.Args.push_back(FormatArg::String);
      continue;
    }
    if (F(I) == 'c') {
      P.Args.push_back(FormatArg::Char);
      continue;
    }
    if (F(I) == 'l')
      ++I;
    if (F(I) == 'l')
      ++I;
    char K = F(I);
    if (K != 'd' && K != 'i' && K != 'u' && K != 'x' && K != 'X')
      return Refuse("unknown conversion '" + Fmt.substr(Start, I + 1 - Start) + "'" + at(Start) +
                    " (the kernel takes %d %i %u %x %X with l or ll, %c, %s, %pks, %pI4 %pi4 "
                    "%pI6 %pi6 and %%)");
    P.Args.push_back(FormatArg::Number);
  }
  return P;
}

} // namespace ebpfgpu::verifier::detail
