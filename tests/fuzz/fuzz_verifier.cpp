// SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target: untrusted bytes through the ELF reader, the decoder and
// the verifier, as ebpf-gpu-cc would take them. Nothing may crash, hang or
// touch memory it does not own; refusals are fine.

#include "ebpf-gpu/ISA/Decoder.h"
#include "ebpf-gpu/Object/Object.h"
#include "ebpf-gpu/Verifier/Verifier.h"

#include <bpf/libbpf.h>

#include <cstddef>
#include <cstdint>

using namespace ebpfgpu;

namespace {

void verifyProgram(const object::ProgramSpec &P, const std::vector<object::MapSpec> &Maps,
                   const platform::Platform &Plat, uint64_t MemSize) {
  verifier::Options O;
  O.Platform = &Plat;
  O.RawMemSize = MemSize;
  O.MaxInsnsProcessed = 20000; // keeps each input fast; the logic is the same
  verifier::Result R = verifier::verify(P, Maps, O);
  if (!R.ok())
    (void)verifier::formatDiagnostic(*R.Error, P);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static const bool Quiet = [] {
    libbpf_set_print(nullptr);
    return true;
  }();
  (void)Quiet;
  if (Size >= 4 && Data[0] == 0x7f && Data[1] == 'E') {
    auto Obj = object::readObjectMemory(Data, Size, "fuzz.o");
    if (Obj)
      for (const object::ProgramSpec &P : Obj->Programs)
        verifyProgram(P, Obj->Maps, platform::xdpPlatform(), 0);
    return 0;
  }
  // Raw instructions: the first byte picks the platform and memory size.
  if (Size < 1)
    return 0;
  uint8_t Mode = Data[0];
  auto Insns = isa::decodeProgram(Data + 1, Size - 1);
  if (!Insns)
    return 0;
  object::ProgramSpec P;
  P.Name = "fuzz";
  P.Insns = std::move(*Insns);
  P.Functions.push_back({"fuzz", 0});
  if (Mode & 1)
    verifyProgram(P, {}, platform::xdpPlatform(), 0);
  else
    verifyProgram(P, {}, platform::rawPlatform(), Mode >> 1);
  return 0;
}
