// SPDX-License-Identifier: Apache-2.0
//
// eBPF -> LLVM IR. Each eBPF function (the entry and every sub-program)
// becomes one LLVM function `i64 (ptr ctx, i64 r1, ..., i64 r5)` whose
// registers are allocas that mem2reg promotes; the stack frame is sized
// from what the function touches. The same module feeds the host JIT and
// the NVPTX back end.

#ifndef EBPF_GPU_COMPILER_LIFTER_H
#define EBPF_GPU_COMPILER_LIFTER_H

#include "ebpf-gpu/Object/Object.h"
#include "ebpf-gpu/Platform/Platform.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <array>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace ebpfgpu::compiler {

struct LiftOptions {
  const platform::Platform *Platform = &platform::xdpPlatform();
  /// Address space of memory the lifter cannot attribute (generic on GPUs).
  unsigned MemoryAddrSpace = 0;
  /// Address space of packet memory (global on GPUs).
  unsigned PacketAddrSpace = 0;
  /// Backward jumps count their turns and call EBPFGPU_LOOP_GUARD (GpuAbi.h)
  /// every 65,536th, so a loop that never ends (a verifier bug, an unverified
  /// program) can be stopped from the host. GPUs only: a host thread is not
  /// stopped that way.
  bool LoopGuard = false;
  /// The program's loads from values of hashed and per-CPU maps are tagged
  /// (StrongValueLoadTag) with the map's shape global, so that a GPU back
  /// end can make them strong where a program changes the map while others
  /// read it (MapHelpers.inc: ebpfgpu_load_link): see
  /// strengthenMapValueLoads.
  bool TagMapValueLoads = false;
  /// Atomic adds whose old value the program does not fetch call
  /// ebpfgpu_warp_add_u64/_u32 (GPU device library: one add per warp and
  /// address) instead of an atomicrmw.
  bool WarpAtomicAdds = false;
  /// Each map's object global holds its header (struct ebpfgpu_map, as an
  /// array of i64) in this address space, the loader writing the header
  /// there, instead of a pointer to a header in device memory (0: the
  /// pointer). GPUs: constant memory (4), so the helpers' header reads are
  /// constant-cache loads at fixed addresses, not a load of the pointer
  /// and then dependent loads through it.
  unsigned MapHeaderAddrSpace = 0;
};

/// The metadata kind of TagMapValueLoads: the map's shape global (struct
/// ebpfgpu_map_shape as [N x i32]), then an i1: 1 when no program writes
/// the map's values in place (its elements are only replaced whole).
inline constexpr const char *StrongValueLoadTag = "ebpfgpu.map_value";

/// TagMapValueLoads on a shared hashed map (hash, LRU hash; not per-CPU):
/// every access through a value pointer takes its address from a call
/// `ptr MapValueMarkFn(ptr P, ptr Shape, i1 Fixed)` that returns P, at the
/// access (where the verifier proved P not null), with P's dereferenceable
/// bytes as a return attribute. Memory-free and opaque, so loads stay
/// plain through the optimiser, keep one base with constant offsets for
/// alias analysis, and keep the mark through any merge or hoist, where a
/// load's metadata would be dropped. After the optimiser,
/// hoistAndStrengthenValueLoads issues such loads early, makes those of
/// maps that need it strong, and removes the calls. `Fixed` has the
/// meaning of StrongValueLoadTag's second operand.
inline constexpr const char *MapValueMarkFn = "ebpfgpu.map_value.mark";

/// After the optimiser, on a module with MapValueMarkFn calls: (1) a load
/// through a marked value pointer that every path from an earlier point
/// performs, with no write that may change those bytes in between (MemorySSA)
/// and the bytes dereferenceable there, is issued once at that point, so
/// that the loads of one value go to memory together instead of one round
/// trip after another's branch; (2) loads (and memory copies) through a
/// marked pointer become volatile where the map's shape is not stable and
/// `Fixed` is false, as strengthenMapValueLoads decides; (3) the marks are
/// replaced by their pointers. Returns how many loads it hoisted.
unsigned hoistAndStrengthenValueLoads(llvm::Module &M);

/// Whether the program's loads from a map with this shape global (may be
/// null: unknown) must be strong: per-CPU, or neither stable nor `Fixed`.
bool valueLoadsMustBeStrong(const llvm::GlobalVariable *Shape, bool Fixed);

/// Makes every tagged load from a per-CPU map, or from a map whose shape
/// says it is not stable and whose values some program writes in place,
/// volatile (a strong load, not served from the GPU's L1 cache), and drops
/// the tags. Returns how many loads it made
/// volatile.
unsigned strengthenMapValueLoads(llvm::Module &M);

/// Names of the module globals a loader binds after code generation.
struct MapBinding {
  /// Index into the object's maps.
  size_t MapIndex = 0;
  /// Global holding the runtime map object (empty where unused): a `ptr` to
  /// its header, or the header itself (LiftOptions::MapHeaderAddrSpace).
  std::string ObjectGlobal;
  /// Global data maps only: the `[N x i8]` global holding the data.
  std::string DataGlobal;
  /// Whether a program may change the map's keys or contents through a
  /// helper (update, delete, push, pop, event output: any map helper but
  /// a lookup or a redirect), and whether it may write its values in place
  /// (a store or an atomic through a value pointer, or one handed to a
  /// helper). True where unknown: what decides whether the map can be
  /// copied to each of several GPUs (platform::MapSpec::ProgramChangesKeys).
  bool ChangesKeys = true;
  bool WritesValues = true;
};

struct LiftedProgram {
  std::unique_ptr<llvm::Module> Module;
  /// The entry function: `i64 Entry(ptr ctx, i64 r1, i64 r2, i64 r3, i64 r4,
  /// i64 r5)`. XDP: r1 is the context pointer; raw: r1/r2 the memory.
  std::string EntryName;
  std::vector<MapBinding> Maps;
  /// Helper runtime functions the module calls, by kernel name.
  std::vector<std::string> HelpersUsed;
  /// The runtime functions those calls bind to (`ebpfgpu_<name>`): the
  /// kernel name, or a map kind's variant ("hash_lookup_elem").
  std::vector<std::string> RuntimeHelpers;
  /// Stack bytes of each function, in ProgramSpec::Functions order.
  std::vector<unsigned> FrameBytes;
  /// Per-CPU arrays the program only adds to, a block at a time, on a
  /// slice the block picks (GPU): they need no CPU of the thread's own.
  std::set<size_t> BlockSliceMaps;
};

/// Lifts `Prog` into a new module in `Ctx`. Errors name the pc and, when
/// the object has line info, the source line:
/// "prog.c:42: pc 17: <reason>".
llvm::Expected<LiftedProgram> liftProgram(const object::ProgramSpec &Prog,
                                          const std::vector<object::MapSpec> &Maps,
                                          const LiftOptions &Opts,
                                          llvm::LLVMContext &Ctx);

/// The programs one compiled unit holds: its entry and, when the object has
/// program arrays, every program of the object, which bpf_tail_call may
/// reach. A program's id (what a program array holds, less one) is its
/// index in `Programs`.
struct ProgramSet {
  std::vector<const object::ProgramSpec *> Programs;
  size_t Entry = 0;

  /// The ids of the program arrays' static slots, as
  /// (map index, slot, program id + 1); a slot naming a program outside
  /// the set is an error.
  llvm::Expected<std::vector<std::array<uint32_t, 3>>>
  programSlots(const std::vector<object::MapSpec> &Maps) const;
};

/// A map of maps of a compiled unit: its inner map table (the names of the
/// maps its values may name, object::innerMapCandidates' order; the unit
/// binds every one) and the slots the object fills statically, as
/// (slot, index in the table + 1).
struct InnerMapTable {
  size_t Outer = 0;
  std::vector<std::string> Names;
  std::vector<std::pair<uint32_t, uint32_t>> Slots;
};
/// The inner map tables of the maps of maps among `Bound`; a static slot
/// naming a map that does not fit the inner definition is an error.
llvm::Expected<std::vector<InnerMapTable>> innerMapTables(const std::vector<object::MapSpec> &Maps,
                                                          const std::vector<MapBinding> &Bound);

/// The set that runs program `Entry` of `Obj`: `Entry` alone, or with
/// program arrays in the object, all the object's programs.
ProgramSet programSetFor(const object::ObjectSpec &Obj, const object::ProgramSpec &Entry);

/// Lifts every program of `Set` into one module (each as liftProgram
/// does, sharing maps and global data) with a dispatcher as the entry:
/// `ebpfgpu_dispatch` runs the set's entry program, then, as long as a
/// program made a successful bpf_tail_call, its target, and returns the
/// last program's r0. A set of one program is liftProgram's result.
llvm::Expected<LiftedProgram> liftProgramSet(const ProgramSet &Set,
                                             const std::vector<object::MapSpec> &Maps,
                                             const LiftOptions &Opts, llvm::LLVMContext &Ctx);

/// Runs LLVM's standard pipeline at `OptLevel` (0..3) over `M`.
void optimizeModule(llvm::Module &M, unsigned OptLevel);

/// The program-visible layout of a raw instruction stream (no ELF): one
/// function per call target, no maps, no line info.
object::ProgramSpec programFromInsns(std::vector<isa::Insn> Insns,
                                     const std::string &Name);

} // namespace ebpfgpu::compiler

#endif // EBPF_GPU_COMPILER_LIFTER_H
