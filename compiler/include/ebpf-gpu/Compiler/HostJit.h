// SPDX-License-Identifier: Apache-2.0
//
// The host back end: a lifted program compiled for this CPU with LLVM's ORC
// JIT. It is the CPU fallback of the runtime, the oracle the GPU back end is
// compared against, and what runs where no GPU exists.

#ifndef EBPF_GPU_COMPILER_HOSTJIT_H
#define EBPF_GPU_COMPILER_HOSTJIT_H

#include "ebpf-gpu/Abi/TraceLog.h"
#include "ebpf-gpu/Compiler/Lifter.h"
#include "ebpf-gpu/Support/Error.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>

namespace llvm::orc {
class LLJIT;
}

namespace ebpfgpu::abi {
class HostMap;
struct EventBatch;
}

namespace ebpfgpu::compiler {

/// A program JIT-compiled for the host. Owns its code; not copyable.
/// run() may be called from several threads at once (it keeps no state
/// besides the program's maps and global data).
class HostProgram {
public:
  ~HostProgram();
  HostProgram(const HostProgram &) = delete;
  HostProgram &operator=(const HostProgram &) = delete;

  /// Lifts, optimises and JIT-compiles `Prog`. Fails with the helper's name
  /// when the program calls a helper the host runtime does not provide.
  /// `Cpus`: the CPUs the program runs on at once (runXdp's context names
  /// one in cpu_id, 0..Cpus-1): per-CPU maps keep a slice each, so that
  /// threads running the program at once never update one value together.
  static llvm::Expected<std::unique_ptr<HostProgram>>
  compile(const object::ProgramSpec &Prog, const std::vector<object::MapSpec> &Maps,
          const LiftOptions &Opts, unsigned OptLevel = 2, uint32_t Cpus = 1);
  /// The same for programs that tail-call each other: one unit whose entry
  /// is the set's entry program; program arrays get the object's slots.
  static llvm::Expected<std::unique_ptr<HostProgram>>
  compile(const ProgramSet &Set, const std::vector<object::MapSpec> &Maps,
          const LiftOptions &Opts, unsigned OptLevel = 2, uint32_t Cpus = 1);
  /// The CPUs per-CPU maps have slices for.
  uint32_t cpus() const { return Cpus; }

  /// Runs an XDP program on `Ctx` and returns r0.
  uint64_t runXdp(platform::XdpRuntimeContext &Ctx) const {
    Ctx.trace_log = reinterpret_cast<uint64_t>(TraceBlock.data());
    Ctx.fib = FibBlock.empty() ? 0 : reinterpret_cast<uint64_t>(FibBlock.data());
    return Entry(&Ctx, reinterpret_cast<uint64_t>(&Ctx), 0, 0, 0, 0);
  }
  /// Runs a raw-platform program with r1 = Mem, r2 = Len and returns r0.
  uint64_t runRaw(void *Mem, uint64_t Len) const {
    return Entry(nullptr, reinterpret_cast<uint64_t>(Mem), Len, 0, 0, 0);
  }

  /// The program's maps and global data, as text (abi/MapMemory.h), in
  /// map name order.
  std::string dumpMaps() const;
  /// Between runs (no call of run* in progress): returns what the last runs
  /// deleted from hash maps to their free lists.
  void reclaimMaps();
  /// Between runs: checks every map's structure (abi::checkMapIntegrity).
  MaybeError checkMaps() const;
  /// Between runs: the records the event maps (ringbuf, perf_event_array)
  /// hold, appended to `Out` (packet indexes as the runs' contexts gave
  /// them), and the maps emptied.
  MaybeError takeEvents(abi::EventBatch &Out);
  /// Between runs: the lines bpf_trace_printk wrote since the last take
  /// (empty when the program never calls it), and the log emptied.
  abi::TraceText takeTrace();
  /// Between runs: the forwarding table bpf_fib_lookup reads from now on
  /// (a block of loader/Fib.h; empty: none, so every lookup finds no link).
  void setFib(const std::vector<uint8_t> &Block);
  /// Between runs: sets `Key` to `Value` in the map named `Map`.
  MaybeError updateMap(const std::string &Map, const std::vector<uint8_t> &Key,
                       const std::vector<uint8_t> &Value);
  /// Between runs: makes slot `Key` of the map of maps `Outer` hold the
  /// map named `Inner` (one of its inner map table), or slot `Key` of the
  /// program array `Outer` the program named `Inner` (one of the set's).
  MaybeError setInnerMap(const std::string &Outer, const std::vector<uint8_t> &Key,
                         const std::string &Inner);

  /// Global data (.data, .rodata, .bss): the JIT's own copy, which the
  /// compiled code reads and writes (.rodata is folded into the code, so
  /// writing it changes nothing).
  struct DataView {
    std::string Name;
    uint8_t *Bytes = nullptr;
    uint32_t Size = 0;
    bool ReadOnly = false;
    int32_t SpinLockOff = -1; ///< a struct bpf_spin_lock variable's offset, -1: none
  };
  /// The program's maps and global data, for the operator's map commands;
  /// their contents only between runs (or with runs held back).
  const std::vector<std::unique_ptr<abi::HostMap>> &maps() const { return Maps; }
  const std::vector<DataView> &globalData() const { return Data; }

private:
  using EntryFn = uint64_t (*)(void *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
  HostProgram();
  std::unique_ptr<llvm::orc::LLJIT> Jit;
  EntryFn Entry = nullptr;
  std::vector<std::unique_ptr<abi::HostMap>> Maps;
  /// The compiled set's programs in id order (what program arrays hold).
  std::vector<std::string> SetPrograms;
  uint32_t Cpus = 1;
  std::vector<DataView> Data;
  /// bpf_trace_printk's log (header and lines); empty when unused.
  std::vector<uint64_t> TraceBlock;
  /// bpf_fib_lookup's table (8-byte aligned copy of the block); empty: none.
  std::vector<uint64_t> FibBlock;
};

/// Address of the host implementation of helper `Name` (kernel name without
/// the bpf_ prefix), or null when the host runtime has none.
void *hostHelperAddress(const std::string &Name);

} // namespace ebpfgpu::compiler

#endif // EBPF_GPU_COMPILER_HOSTJIT_H
