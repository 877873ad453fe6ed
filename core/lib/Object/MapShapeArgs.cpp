// SPDX-License-Identifier: Apache-2.0
// The tools' map-shape options (--inner-map, --map-size, --map-key-size,
// --map-value-size) parsed as the object reader takes them: built in every
// configuration, as the loader reads these options with or without the
// compiler (the object reader itself needs libbpf and libelf).
#include "ebpf-gpu/Object/Object.h"
#include <cctype>
#include <cstdlib>

namespace ebpfgpu::object {

Expected<std::pair<std::string, uint32_t>> parseMapSize(const std::string &Arg) {
  return parseMapNumber(Arg, "--map-size", "ENTRIES");
}

Expected<std::pair<std::string, uint32_t>> parseMapNumber(const std::string &Arg,
                                                          const std::string &Option,
                                                          const std::string &Unit) {
  size_t Eq = Arg.find('=');
  std::string V = Eq == std::string::npos ? "" : Arg.substr(Eq + 1);
  char *End = nullptr;
  unsigned long long N = V.empty() ? 0 : std::strtoull(V.c_str(), &End, 10);
  if (Eq == 0 || V.empty() || *End || !std::isdigit(static_cast<unsigned char>(V[0])) || N == 0 ||
      N > 0x7fffffffu)
    return Error(Option + " '" + Arg + "': expected MAP=" + Unit + " (1 to 2147483647)");
  return std::make_pair(Arg.substr(0, Eq), uint32_t(N));
}

Expected<std::pair<std::string, std::string>> parseInnerMapTemplate(const std::string &Arg) {
  size_t Eq = Arg.find('=');
  if (Eq == std::string::npos || Eq == 0 || Eq + 1 == Arg.size())
    return Error("--inner-map '" + Arg + "': expected OUTER=MAP");
  return std::make_pair(Arg.substr(0, Eq), Arg.substr(Eq + 1));
}

} // namespace ebpfgpu::object
