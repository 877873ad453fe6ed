// SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target for the whole compile pipeline: untrusted bytes through
// the ELF reader or the decoder, the verifier, and for every program the
// verifier accepts, the lifter, LLVM's optimisation pipeline and either the
// NVPTX back end (a `.gpu.o` spec with its PTX) or the host JIT followed by
// a run of the program. Running is allowed because the verifier proved the
// program safe and terminating; its memory sits against a PROT_NONE guard
// page so that an access the verifier wrongly allowed faults even though
// the JIT-compiled code is not instrumented by AddressSanitizer.
//
// Input: one mode byte, then either an ELF object (starting "\x7fELF"; its
// programs run on the XDP platform with their maps) or raw instructions.
// Mode bit 0: raw instructions on the XDP platform instead of the raw one;
// bit 1: compile for the GPU instead of running on the host; bit 2: the
// guard page before the memory instead of after it; bits 3-7: the memory
// (raw) or packet (XDP) size in units of 8 bytes.

#include "ebpf-gpu/Compiler/GpuArtifact.h"
#include "ebpf-gpu/Compiler/HostJit.h"
#include "ebpf-gpu/ISA/Decoder.h"
#include "ebpf-gpu/Object/Object.h"
#include "ebpf-gpu/Verifier/Verifier.h"

#include "llvm/Support/Error.h"

#include <bpf/libbpf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

using namespace ebpfgpu;

namespace {

/// Bytes a program may touch, placed against an inaccessible page on one
/// side (and an inaccessible page on the other side of the mapping).
class GuardedMemory {
public:
  GuardedMemory(size_t Size, bool GuardBefore) {
    size_t Page = size_t(sysconf(_SC_PAGESIZE));
    DataPages = (Size + Page - 1) / Page + (Size == 0);
    Length = (DataPages + 2) * Page;
    void *M = mmap(nullptr, Length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (M == MAP_FAILED)
      std::abort();
    Base = static_cast<uint8_t *>(M);
    if (mprotect(Base + Page, DataPages * Page, PROT_READ | PROT_WRITE) != 0)
      std::abort();
    Bytes = GuardBefore ? Base + Page : Base + Page + DataPages * Page - Size;
    for (size_t I = 0; I < Size; ++I)
      Bytes[I] = uint8_t(I * 37 + 11);
  }
  ~GuardedMemory() { munmap(Base, Length); }
  GuardedMemory(const GuardedMemory &) = delete;
  GuardedMemory &operator=(const GuardedMemory &) = delete;

  uint8_t *data() const { return Bytes; }

private:
  uint8_t *Base = nullptr;
  uint8_t *Bytes = nullptr;
  size_t DataPages = 0;
  size_t Length = 0;
};

struct Mode {
  bool XdpRaw;
  bool Gpu;
  bool GuardBefore;
  unsigned Size;
  explicit Mode(uint8_t B)
      : XdpRaw(B & 1), Gpu(B & 2), GuardBefore(B & 4), Size(unsigned(B >> 3) * 8) {}
};

// Headroom the runtime keeps before an XDP packet (DESIGN.md) when the
// guard page is after the packet; with the guard before, the room is after.
constexpr unsigned XdpRoom = 256;

void runXdp(const compiler::HostProgram &P, const Mode &M) {
  // Guard after: [headroom][packet]|guard. Guard before: guard|[packet][tailroom].
  GuardedMemory Mem(M.Size + XdpRoom, M.GuardBefore);
  platform::XdpRuntimeContext Ctx = {};
  uint64_t Start = reinterpret_cast<uint64_t>(Mem.data());
  Ctx.buffer_start = Start;
  Ctx.buffer_end = Start + M.Size + XdpRoom;
  Ctx.data = M.GuardBefore ? Start : Start + XdpRoom;
  Ctx.data_meta = Ctx.data;
  Ctx.data_end = Ctx.data + M.Size;
  Ctx.ingress_ifindex = 1;
  Ctx.random_state = 0x5eed;
  (void)P.runXdp(Ctx);
  // What the helpers left must still describe the buffer.
  if (Ctx.data < Ctx.buffer_start || Ctx.data > Ctx.data_end || Ctx.data_end > Ctx.buffer_end ||
      Ctx.data_meta > Ctx.data || Ctx.data_meta < Ctx.buffer_start)
    std::abort();
}

void compileAndRun(const object::ObjectSpec &Obj, const object::ProgramSpec &P,
                   const platform::Platform &Plat, const Mode &M) {
  verifier::Options VO;
  VO.Platform = &Plat;
  VO.RawMemSize = M.Size;
  VO.MaxInsnsProcessed = 20000; // keeps each input fast; the logic is the same
  verifier::Result R = verifier::verify(P, Obj.Maps, VO);
  if (!R.ok()) {
    (void)verifier::formatDiagnostic(*R.Error, P);
    return;
  }
  compiler::LiftOptions LO;
  LO.Platform = &Plat;
  if (M.Gpu) {
    auto Spec = compiler::buildGpuObject(Obj, P, LO, compiler::GpuOptions(), /*Verified=*/true);
    // A verified program may still use a helper the device library lacks.
    if (!Spec)
      llvm::consumeError(Spec.takeError());
    return;
  }
  auto HP = compiler::HostProgram::compile(P, Obj.Maps, LO);
  if (!HP) {
    llvm::consumeError(HP.takeError());
    return;
  }
  if (&Plat == &platform::rawPlatform()) {
    GuardedMemory Mem(M.Size, M.GuardBefore);
    (void)(*HP)->runRaw(Mem.data(), M.Size);
  } else {
    runXdp(**HP, M);
  }
  (void)(*HP)->dumpMaps();
  if (auto E = (*HP)->checkMaps())
    std::abort(); // a map the program updated through helpers is corrupt
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static const bool Quiet = [] {
    libbpf_set_print(nullptr);
    return true;
  }();
  (void)Quiet;
  if (Size < 1)
    return 0;
  Mode M(Data[0]);
  ++Data;
  --Size;
  if (Size >= 4 && std::memcmp(Data, "\x7f" "ELF", 4) == 0) {
    auto Obj = object::readObjectMemory(Data, Size, "fuzz.o");
    if (!Obj)
      return 0;
    for (const object::ProgramSpec &P : Obj->Programs)
      compileAndRun(*Obj, P, platform::xdpPlatform(), M);
    return 0;
  }
  auto Insns = isa::decodeProgram(Data, Size);
  if (!Insns)
    return 0;
  object::ObjectSpec Obj;
  Obj.Programs.push_back(compiler::programFromInsns(std::move(*Insns), "fuzz"));
  compileAndRun(Obj, Obj.Programs[0],
                M.XdpRaw ? platform::xdpPlatform() : platform::rawPlatform(), M);
  return 0;
}
