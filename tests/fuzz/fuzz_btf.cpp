// SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target: the BTF pretty-printer behind the daemon's `map dump`
// and `map lookup` (loader/BtfFormat.h), fed arbitrary BTF and value
// bytes, as a damaged or hostile object would carry them. Input: a 2-byte
// little-endian BTF length, the BTF, a 4-byte type id, then the value
// bytes. Whatever it prints must be JSON the daemon's parser reads (the
// daemon embeds it in its responses).

#include "ebpf-gpu/Daemon/Json.h"

#include "ebpf-gpu/Loader/BtfFormat.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace ebpfgpu;

namespace {

void checkJson(const std::optional<std::string> &Text) {
  if (!Text)
    return;
  auto V = tools::json::parse(*Text);
  if (!V) {
    std::fprintf(stderr, "BtfTypes::format wrote invalid JSON (%s): %s\n",
                 V.error().message().c_str(), Text->c_str());
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size < 2)
    return 0;
  size_t Len = std::min<size_t>(Data[0] | size_t(Data[1]) << 8, Size - 2);
  std::vector<uint8_t> Btf(Data + 2, Data + 2 + Len);
  const uint8_t *Rest = Data + 2 + Len;
  size_t RestSize = Size - 2 - Len;
  auto T = loader::BtfTypes::read(Btf);
  if (!T)
    return 0;
  uint32_t Id = 0;
  if (RestSize >= 4) {
    std::memcpy(&Id, Rest, 4);
    Rest += 4;
    RestSize -= 4;
  }
  // Values in their own allocation: ASan sees any read past them.
  std::vector<uint8_t> Value(Rest, Rest + RestSize);
  checkJson(T->format(Id, Value.data(), Value.size()));
  uint64_t Bytes = T->sizeOf(Id);
  if (Bytes && Bytes <= Value.size())
    checkJson(T->format(Id, Value.data(), size_t(Bytes)));
  for (const char *Name : {".data", ".bss", ".rodata", ".data.fuzz"})
    if (uint32_t S = T->dataSection(Name)) {
      uint64_t N = T->sizeOf(S);
      if (N <= Value.size())
        checkJson(T->format(S, Value.data(), size_t(N)));
    }
  // Every map the BTF describes, with the value bytes as key and value.
  for (const char *Name : {"routes", "counters", "fuzz", "stats", "flows"}) {
    auto [K, V] = T->mapTypes(Name);
    for (uint32_t X : {K, V}) {
      uint64_t N = T->sizeOf(X);
      if (X && N <= Value.size())
        checkJson(T->format(X, Value.data(), size_t(N)));
    }
  }
  return 0;
}
