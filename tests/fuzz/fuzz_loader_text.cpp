// SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target: the loader's text inputs, as an operator gives them on
// the command line or in files. The first byte picks the parser: even, the
// `--fib` forwarding-table file (loader/Fib.h), whose accepted tables must
// print (formatFib) as text that reads back to the same block; odd, map
// entries (`--map-set MAP:KEY:VALUE`, the hex bytes the daemon's map
// commands take, and `--map-file` text). Refusals are fine; a crash,
// sanitizer report or a broken round trip is a bug.

#include "ebpf-gpu/Loader/Fib.h"
#include "ebpf-gpu/Loader/MapEntries.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace ebpfgpu;

namespace {

void fib(const std::string &Text) {
  auto Block = loader::parseFib(Text, "fuzz.fib");
  if (!Block)
    return;
  std::string Printed = loader::formatFib(*Block);
  auto Again = loader::parseFib(Printed, "printed.fib");
  if (!Again) {
    std::fprintf(stderr, "formatFib wrote what parseFib refuses: %s\n--\n%s",
                 Again.error().message().c_str(), Printed.c_str());
    std::abort();
  }
  if (*Again != *Block) {
    std::fprintf(stderr, "formatFib/parseFib round trip changed the table:\n%s", Printed.c_str());
    std::abort();
  }
}

void mapEntries(const std::string &Text) {
  (void)loader::parseHexBytes(Text);
  if (auto E = loader::parseMapEntry(Text)) {
    if (E->Map.empty() || (E->Key.empty() && !E->Inner.empty()) ||
        (E->Inner.empty() && E->PatternFile.empty() && E->Value.empty()))
      std::abort(); // parseMapEntry promises every part non-empty, a value's key aside
  }
  (void)loader::parseMapText(Text, "fuzz.map");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size < 1)
    return 0;
  std::string Text(reinterpret_cast<const char *>(Data + 1), Size - 1);
  if (Data[0] & 1)
    mapEntries(Text);
  else
    fib(Text);
  return 0;
}
