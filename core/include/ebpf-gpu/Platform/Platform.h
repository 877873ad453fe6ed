// SPDX-License-Identifier: Apache-2.0
//
// Everything the toolchain knows about the environment a program runs in:
// the context it receives in r1 (field layout as the program sees it and as
// the runtime lays it out), and the helper functions it may call, with
// their typed signatures. One instance per program type (XDP; the raw
// memory model of the conformance suite); no such facts live elsewhere.

#ifndef EBPF_GPU_PLATFORM_PLATFORM_H
#define EBPF_GPU_PLATFORM_PLATFORM_H

#include "ebpf-gpu/Platform/PlatformKind.h"
#include "ebpf-gpu/Platform/XdpContext.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ebpfgpu::platform {

/// The type of a helper argument or result at the runtime ABI.
enum class ValueType : uint8_t {
  Void,   ///< no argument / no result
  Scalar, ///< 64-bit integer
  Ptr,    ///< pointer to program-visible memory (stack, packet, map value)
  Map,    ///< a map object reference (an LDDW map)
  Ctx,    ///< the program's context
};

/// What the verifier requires of a helper argument.
enum class ArgCheck : uint8_t {
  Scalar,       ///< any initialised non-pointer value
  Anything,     ///< any initialised value
  Unused,       ///< any value, even an unwritten register (variadic arguments)
  Ctx,          ///< the context pointer, unmodified
  MapPtr,       ///< a map reference (LDDW map)
  MapKey,       ///< readable memory of the map's key size
  MapValue,     ///< readable memory of the map's value size
  MapValueOut,  ///< writable memory of the map's value size, may be uninitialised: the
                ///< helper fills it (the kernel's ARG_PTR_TO_MAP_VALUE | MEM_UNINIT |
                ///< MEM_WRITE)
  Mem,          ///< readable memory; its size is the next argument
  UninitMem,    ///< writable memory (may be uninitialised); size in the next argument
  InOutMem,     ///< initialised stack or map value memory the helper rewrites; size next
  InOutU32,     ///< an initialised, 4-byte aligned u32 the helper reads and rewrites, on the
                ///< stack, in a map value or in a record (the kernel's
                ///< ARG_PTR_TO_FIXED_SIZE_MEM | MEM_WRITE | MEM_ALIGNED of 4 bytes)
  ConstSize,    ///< a size > 0 with a known upper bound (follows Mem/UninitMem)
  ConstSizeOrZero, ///< as ConstSize, 0 allowed
  AllocSize,    ///< a known constant size of memory to allocate (0 allowed)
  ReleaseAlloc, ///< allocated memory (not null, at its start) the helper releases
  ConstStr,     ///< a NUL-terminated string at a constant offset in a read-only map
                ///< value (.rodata), found there by the verifier (the kernel's
                ///< ARG_PTR_TO_CONST_STR)
  FormatStr,    ///< as ConstStr, a format of bpf_bprintf_prepare's rules that the
                ///< verifier parses: its conversions take the u64s of the FormatData
                ///< argument that follows (the kernel's check_bpf_snprintf_call)
  FormatData,   ///< readable memory of u64s, its size the next argument (a constant
                ///< multiple of 8, 8 for each conversion of the FormatStr before it
                ///< at least); where a conversion reads memory (%s, %pI4, ...) its
                ///< u64 is a pointer the verifier tracks to what it reads
  Callback,     ///< a subprogram's address (an lddw of a code address, the kernel's
                ///< BPF_PSEUDO_FUNC): the helper calls it with (index, the next
                ///< argument) until it returns 1, or where the helper takes a map
                ///< (bpf_for_each_map_elem) with (map, key, value, the next
                ///< argument) for each element; verified as a loop at the call site
  CallbackCtx,  ///< the pointer the callback receives last (r2, or r4 with a map): the
                ///< stack or null (the kernel's ARG_PTR_TO_STACK_OR_NULL); the
                ///< callback may read and write it
  SpinLock,     ///< the `struct bpf_spin_lock` of a map value, exactly (the kernel's
                ///< ARG_PTR_TO_SPIN_LOCK): the helper takes it; no lock may be held
  SpinUnlock,   ///< as SpinLock: the helper releases it, the lock the program holds
  Dynptr,       ///< a `struct bpf_dynptr` on the stack that bpf_dynptr_from_xdp
                ///< initialised (the kernel's ARG_PTR_TO_DYNPTR | MEM_RDONLY): the
                ///< helper reads the dynptr, never changes it
  FixedMem,     ///< readable memory of the row's MemSizes bytes (the kernel's
                ///< ARG_PTR_TO_FIXED_SIZE_MEM)
  OutFixedMem,  ///< writable memory of the row's MemSizes bytes, aligned to them, that
                ///< the helper fills (may be uninitialised): on the stack, in a map
                ///< value or in a record, not the packet (the kernel's
                ///< ARG_PTR_TO_FIXED_SIZE_MEM | MEM_UNINIT | MEM_WRITE | MEM_ALIGNED)
};

/// Whether a helper writes through an argument of this kind (the lifter's
/// stack tracking forgets what it held there).
inline bool argWritesMemory(ArgCheck C) {
  return C == ArgCheck::UninitMem || C == ArgCheck::InOutMem || C == ArgCheck::InOutU32 ||
         C == ArgCheck::OutFixedMem;
}

/// What the verifier knows of a helper's result.
enum class RetCheck : uint8_t {
  Scalar,
  MapValueOrNull, ///< a value of the map its MapPtr argument names (an inner
                  ///< map where it is a map of maps), or null
  MapValueOrNullByKey, ///< as MapValueOrNull, but never null where the map is
                       ///< an array and the key a constant in range (the
                       ///< kernel's bpf_map_lookup_elem alone: a key known
                       ///< in range finds its element)
  AllocMemOrNull, ///< memory of the AllocSize argument's size, or null; a
                  ///< reference the program must release (ReleaseAlloc)
  DynptrMemOrNull, ///< the bytes of its Dynptr argument, of the AllocSize
                   ///< argument's size, or null: a slice of that dynptr (the
                   ///< kernel's RET_PTR_TO_DYNPTR_MEM_OR_NULL)
};

/// Whether a helper of result `R` returns a value of the map it takes.
inline bool returnsMapValue(RetCheck R) {
  return R == RetCheck::MapValueOrNull || R == RetCheck::MapValueOrNullByKey;
}

/// The kinds of map a helper may take, as the kernel pairs them
/// (check_map_func_compatibility): special maps serve only their own
/// helpers, and those helpers only them.
enum class MapFamily : uint8_t {
  Data,           ///< hash, array, LRU, LPM trie and the rest: maps of data
  Redirect,       ///< devmap, devmap_hash, cpumap, xskmap
  MapOfMaps,      ///< array_of_maps, hash_of_maps
  ProgArray,      ///< the programs bpf_tail_call jumps to
  PerfEventArray, ///< bpf_perf_event_output's records
  Ringbuf,        ///< bpf_ringbuf_*'s records
  PerCpuData,     ///< of the maps of data, the per-CPU ones (percpu array,
                  ///< percpu hash, LRU percpu hash)
  QueueStack,     ///< queue, stack: bpf_map_push/pop/peek_elem's
  BloomFilter,    ///< bloom filter: bpf_map_push/peek_elem's
  Iterable,       ///< of the maps of data, those bpf_for_each_map_elem walks
                  ///< (array, hash, LRU hash and their per-CPU kinds: the
                  ///< kernel's maps with map_for_each_callback)
  Patterns,       ///< ebpf-gpu's pattern maps: only ebpf_gpu_match takes them
  Model,          ///< ebpf-gpu's model maps: only ebpf_gpu_classify takes them
  LookupRedirect, ///< of the redirect maps, those bpf_map_lookup_elem reads
                  ///< (devmap, devmap_hash, xskmap): the kernel keeps a
                  ///< cpumap for bpf_redirect_map alone
};

/// The family of the kernel's map type `Type`; a type this code does not
/// name is a map of data.
MapFamily mapFamily(uint32_t Type);
/// Whether map type `Type` is of family `F`: its own, or PerCpuData for
/// the per-CPU maps of data, Iterable for the maps bpf_for_each_map_elem
/// walks.
bool mapInFamily(uint32_t Type, MapFamily F);

/// What a helper does beyond its arguments and result that the verifier
/// must model.
enum class HelperEffect : uint8_t {
  None,
  /// May leave the program for another and never return: no reference may
  /// be held across it.
  TailCall,
  /// Writes the packet and may move or resize it: every packet pointer
  /// goes stale.
  MovesPacket,
  /// Writes packet bytes and moves nothing: packet pointers stay valid.
  StoresPacket,
  /// Changes the map its MapPtr argument names (adds, replaces or removes
  /// an element): refused on a map the program may not write
  /// (BPF_F_RDONLY_PROG), as the kernel's record_func_map.
  ChangesMap,
};

/// A helper function: its kernel id and name, the typed signature of the
/// runtime function that implements it (`ebpfgpu_<Name>`), and the checks
/// the verifier makes on its arguments, the maps it takes and its effects.
struct HelperProto {
  int32_t Id = 0;
  std::string Name;
  ValueType Ret = ValueType::Scalar;
  std::vector<ValueType> Args;
  /// The runtime function also receives the context as a hidden first
  /// argument (for per-packet state such as the redirect target).
  bool ImplicitCtx = false;
  std::vector<ArgCheck> Checks;
  RetCheck Result = RetCheck::Scalar;
  /// The families of map its MapPtr argument may name (none: it takes no
  /// map).
  std::vector<MapFamily> Maps = {};
  HelperEffect Effect = HelperEffect::None;
  /// Callable only from programs with a GPL-compatible license (the
  /// kernel's gpl_only).
  bool GplOnly = false;
  /// Whether its memory arguments may point into the packet (the kernel's
  /// pkt_access); bpf_strncmp's may not.
  bool PacketAccess = true;
  /// For each FixedMem argument, its size in bytes (by argument, 0 for the
  /// others; the kernel's argN_size).
  std::vector<uint32_t> MemSizes = {};

  std::string runtimeSymbol() const { return "ebpfgpu_" + Name; }
};

/// What a kfunc is to the verifier and the lifter: one of an open-coded
/// iterator's three (the kernel's KF_ITER_NEW, KF_ITER_NEXT and
/// KF_ITER_DESTROY), whose first argument is the iterator on the stack, or
/// one of the XDP dynptr kfuncs, whose stack object is a `struct
/// bpf_dynptr` (16 bytes).
enum class KfuncRole : uint8_t {
  IterNew,     ///< (it, args...) -> int: makes an iterator of uninitialised slots
  IterNext,    ///< (it) -> pointer to the next element, or null once drained
  IterDestroy, ///< (it) -> void: releases the iterator
  DynptrFromXdp,   ///< (ctx, flags, ptr) -> int: makes a dynptr over the packet
  DynptrSlice,     ///< (ptr, offset, buffer, size) -> read-only memory of the
                   ///< constant size at offset of the packet, or null
  DynptrSliceRdwr, ///< as DynptrSlice, the memory writable
  DynptrSize,      ///< (ptr) -> u32: its size, -EINVAL when null
  DynptrIsNull,    ///< (ptr) -> bool
  DynptrIsRdonly,  ///< (ptr) -> bool (never for XDP's)
  DynptrAdjust,    ///< (ptr, start, end) -> int: narrows it to [start, end)
  DynptrClone,     ///< (ptr, clone) -> int: a second dynptr over the same bytes
  DynptrCopy,      ///< (dst, dst_off, src, src_off, size) -> int: bytes copied
  DynptrMemset,    ///< (ptr, offset, size, val) -> int: bytes set
  PatternMatch,    ///< ebpf-gpu's ebpf_gpu_match (ctx, offset, pattern map) -> int:
                   ///< the first match's rule id in the packet from offset on
  RxMetadata,      ///< bpf_xdp_metadata_rx_*(ctx, out, [out]) -> int: what the
                   ///< port received with the packet (OutSizes), 0 or -errno
  Classify,        ///< ebpf-gpu's ebpf_gpu_classify (features on the stack, their
                   ///< constant size, model map) -> int: the model's class
  PatternMatchAll, ///< ebpf-gpu's ebpf_gpu_match_all (ctx, offset, pattern map,
                   ///< bitmap on the stack, its constant size) -> int: the number
                   ///< of distinct rules found, a bit set for each
  PullData,        ///< bpf_xdp_pull_data (ctx, len) -> int: the first len bytes
                   ///< linear (0), or -EINVAL past the packet; packet pointers
                   ///< go stale, as after bpf_xdp_adjust_head
  RcuReadLock,     ///< bpf_rcu_read_lock () -> void: opens an RCU read-side
                   ///< region (not nested), which the program must close
  RcuReadUnlock,   ///< bpf_rcu_read_unlock () -> void: closes it
};

/// A kfunc (`extern ... __ksym` in the program): the kernel names kfuncs by
/// BTF ids of its own build, ebpf-gpu by `Id`, which the object reader puts
/// in the call's imm (src BPF_PSEUDO_KFUNC_CALL) once it has found the
/// extern's name here. The verifier and the lifter model each by its role;
/// the lifter lowers the iterators inline and calls the runtime function
/// `ebpfgpu_<Name without bpf_>` for the dynptr kfuncs, `ebpfgpu_<Name
/// without ebpf_gpu_>` for ebpf-gpu's own (api/include/ebpf-gpu/kfuncs.h,
/// docs/KFUNCS.md), which the kernel does not have.
struct KfuncProto {
  int32_t Id = 0;
  std::string Name;
  KfuncRole Role = KfuncRole::IterNew;
  /// The stack object's bytes (8-aligned, a constant offset): the
  /// iterator's, or the dynptr's.
  uint32_t IterSize = 8;
  /// IterNext: the bytes of the element it points to (read-only).
  uint32_t ElemSize = 0;
  /// The argument register that points to the stack object (r3 for
  /// bpf_dynptr_from_xdp's ptr__uninit, else r1).
  uint8_t ObjReg = 1;
  /// The argument registers it takes, r1 to rN (the verifier reads each).
  uint8_t NumArgs = 1;
  /// RxMetadata: the bytes it may write through r2 and r3 (0: no such
  /// argument), as the kernel's pointer-to-scalar kfunc arguments.
  uint8_t OutSizes[2] = {0, 0};

  bool isDynptr() const {
    return Role >= KfuncRole::DynptrFromXdp && Role <= KfuncRole::DynptrMemset;
  }
  /// One of ebpf-gpu's own kfuncs (named ebpf_gpu_*), not the kernel's.
  bool isEbpfGpu() const { return Name.rfind("ebpf_gpu_", 0) == 0; }
  std::string runtimeSymbol() const {
    return "ebpfgpu_" + Name.substr(isEbpfGpu() ? 9 : 4);
  }
};

/// Every kfunc ebpf-gpu knows (the bpf_iter_num family, the XDP dynptr
/// kfuncs, ebpf-gpu's ebpf_gpu_match, ebpf_gpu_match_all and ebpf_gpu_classify), whichever
/// platform offers it.
const std::vector<KfuncProto> &knownKfuncs();
/// The known kfunc named `Name`, or null.
const KfuncProto *kfuncByName(const std::string &Name);

/// A field of the context as the program sees it (e.g. xdp_md), and where
/// the runtime keeps it.
struct ContextField {
  std::string Name;
  uint32_t Offset = 0; ///< in the program's view
  uint32_t Size = 0;   ///< access width the program must use
  uint32_t RuntimeOffset = 0;
  uint32_t RuntimeSize = 0; ///< 8 for pointers, else Size
  bool IsPointer = false;   ///< data, data_end, data_meta
  /// Readable only by programs whose section gives libbpf's devmap attach
  /// type (isDevmapSection): egress_ifindex, as the kernel checks against
  /// the program's expected attach type BPF_XDP_DEVMAP.
  bool DevmapOnly = false;
};

/// Whether libbpf 1.x loads a program of section `Section` with the
/// BPF_XDP_DEVMAP attach type: `xdp/devmap` and `xdp.frags/devmap`, exactly
/// (libbpf 1.x no longer maps the legacy `xdp_devmap/` prefix).
bool isDevmapSection(const std::string &Section);

class Platform {
public:
  virtual ~Platform() = default;

  virtual PlatformKind kind() const = 0;
  /// Short name ("xdp", "raw").
  const char *name() const { return platformName(kind()); }

  /// True when r1 at entry points to a context whose loads the lifter
  /// rewrites; false when r1/r2 are a raw memory pointer and its length.
  virtual bool hasContext() const = 0;

  /// The context field accessed at `Offset` with `Size` bytes, or null when
  /// no field allows that access.
  virtual const ContextField *contextField(int64_t Offset, unsigned Size) const = 0;

  /// The helper with kernel id `Id`, or null when the platform has none.
  virtual const HelperProto *helper(int32_t Id) const = 0;

  /// Every helper of the platform, by id.
  virtual const std::vector<HelperProto> &helpers() const = 0;

  /// The kfunc of ebpf-gpu id `Id` (KfuncProto), or null when the platform
  /// offers none.
  virtual const KfuncProto *kfunc(int32_t /*Id*/) const { return nullptr; }
};

/// The XDP program type (context struct xdp_md).
const Platform &xdpPlatform();
/// The bpf_conformance memory model: r1 = input memory, r2 = its length,
/// helper 5 returns its first argument.
const Platform &rawPlatform();
/// The platform named `Name` ("xdp" or "raw"), or null.
const Platform *findPlatform(const std::string &Name);

/// The context the runtime passes to an XDP program (XdpContext.h).
using XdpRuntimeContext = ::ebpfgpu_xdp_ctx;

/// Why a call of helper `Id`, which `P` does not offer, is refused, naming
/// the kernel's helper where the id is one (from the UAPI header's
/// __BPF_FUNC_MAPPER): "bpf_sk_lookup_tcp (helper 84) is not supported for
/// xdp programs: ...", with the reason for the helpers that reach the
/// kernel's sockets; "helper function 9999 ..." for an id the kernel does
/// not define.
std::string unsupportedHelper(const Platform &P, int32_t Id);

/// The helpers that write the trace log (bpf_trace_printk's lines; the
/// host and GPU back ends give a program that calls one a log).
inline const std::vector<std::string> &traceLogHelpers() {
  static const std::vector<std::string> Names = {"trace_printk", "trace_vprintk"};
  return Names;
}
/// Whether a program calling `Helpers` writes the trace log.
inline bool usesTraceLog(const std::vector<std::string> &Helpers) {
  for (const std::string &H : Helpers)
    for (const std::string &T : traceLogHelpers())
      if (H == T)
        return true;
  return false;
}

} // namespace ebpfgpu::platform

#endif // EBPF_GPU_PLATFORM_PLATFORM_H
