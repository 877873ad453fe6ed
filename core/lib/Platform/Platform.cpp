// SPDX-License-Identifier: Apache-2.0
//
// The XDP and raw-memory platforms: context layouts and helper prototypes,
// and the families of map the helpers take.

#include "ebpf-gpu/Platform/Platform.h"
#include "ebpf-gpu/Platform/MapAbi.h"

#include <linux/bpf.h> // __BPF_FUNC_MAPPER: the kernel's helper names

#include <algorithm>
#include <cstddef>
#include <optional>

namespace ebpfgpu::platform {

namespace {

using V = ValueType;

using C = ArgCheck;
using R = RetCheck;
using M = MapFamily;
using E = HelperEffect;

/// Rows of helper prototypes: one call a helper; the last columns, where
/// given: the result, the maps it takes, its effect, whether it is the
/// kernel's gpl_only, whether it takes packet memory, and FixedMem sizes.
struct HelperRows {
  std::vector<HelperProto> Rows;
  void operator()(int32_t Id, const char *Name, ValueType Ret, std::vector<ValueType> Args,
                  bool ImplicitCtx, std::vector<ArgCheck> Checks, RetCheck Result = R::Scalar,
                  std::vector<MapFamily> Maps = {}, HelperEffect Effect = E::None,
                  bool GplOnly = false, bool PacketAccess = true,
                  std::vector<uint32_t> MemSizes = {}) {
    Rows.push_back({Id, Name, Ret, std::move(Args), ImplicitCtx, std::move(Checks), Result,
                    std::move(Maps), Effect, GplOnly, PacketAccess, std::move(MemSizes)});
  }
};

/// XDP's helpers up to bpf_spin_unlock (94), one row a helper (the
/// kernel's bpf_func_proto of each).
void xdpHelpersTo94(HelperRows &H) {
  // Map helpers see the context for its cpu_id (per-CPU maps). Programs
  // may look up redirect maps (a cpumap not even that) and maps of maps,
  // never change them.
  H(1, "map_lookup_elem", V::Ptr, {V::Map, V::Ptr}, true, {C::MapPtr, C::MapKey},
    R::MapValueOrNullByKey, {M::Data, M::LookupRedirect, M::MapOfMaps});
  H(2, "map_update_elem", V::Scalar, {V::Map, V::Ptr, V::Ptr, V::Scalar}, true,
    {C::MapPtr, C::MapKey, C::MapValue, C::Scalar}, R::Scalar, {M::Data}, E::ChangesMap);
  H(3, "map_delete_elem", V::Scalar, {V::Map, V::Ptr}, true, {C::MapPtr, C::MapKey},
    R::Scalar, {M::Data}, E::ChangesMap);
  H(5, "ktime_get_ns", V::Scalar, {}, false, {});
  H(6, "trace_printk", V::Scalar, {V::Ptr, V::Scalar, V::Scalar, V::Scalar, V::Scalar}, true,
    {C::Mem, C::ConstSize, C::Unused, C::Unused, C::Unused}, R::Scalar, {}, E::None,
    /*GplOnly=*/true);
  H(7, "get_prandom_u32", V::Scalar, {}, true, {});
  H(8, "get_smp_processor_id", V::Scalar, {}, true, {});
  H(12, "tail_call", V::Scalar, {V::Ctx, V::Map, V::Scalar}, false,
    {C::Ctx, C::MapPtr, C::Scalar}, R::Scalar, {M::ProgArray}, E::TailCall);
  H(23, "redirect", V::Scalar, {V::Scalar, V::Scalar}, true, {C::Scalar, C::Scalar});
  H(25, "perf_event_output", V::Scalar, {V::Ctx, V::Map, V::Scalar, V::Ptr, V::Scalar}, false,
    {C::Ctx, C::MapPtr, C::Scalar, C::Mem, C::ConstSizeOrZero}, R::Scalar,
    {M::PerfEventArray}, E::None, /*GplOnly=*/true);
  H(28, "csum_diff", V::Scalar, {V::Ptr, V::Scalar, V::Ptr, V::Scalar, V::Scalar}, false,
    {C::Mem, C::ConstSizeOrZero, C::Mem, C::ConstSizeOrZero, C::Scalar});
  H(42, "get_numa_node_id", V::Scalar, {}, false, {});
  H(44, "xdp_adjust_head", V::Scalar, {V::Ctx, V::Scalar}, false, {C::Ctx, C::Scalar},
    R::Scalar, {}, E::MovesPacket);
  H(51, "redirect_map", V::Scalar, {V::Map, V::Scalar, V::Scalar}, true,
    {C::MapPtr, C::Scalar, C::Scalar}, R::Scalar, {M::Redirect});
  H(54, "xdp_adjust_meta", V::Scalar, {V::Ctx, V::Scalar}, false, {C::Ctx, C::Scalar},
    R::Scalar, {}, E::MovesPacket);
  H(65, "xdp_adjust_tail", V::Scalar, {V::Ctx, V::Scalar}, false, {C::Ctx, C::Scalar},
    R::Scalar, {}, E::MovesPacket);
  H(69, "fib_lookup", V::Scalar, {V::Ctx, V::Ptr, V::Scalar, V::Scalar}, false,
    {C::Ctx, C::InOutMem, C::ConstSize, C::Scalar}, R::Scalar, {}, E::None,
    /*GplOnly=*/true);
  // Maps without keys: the value is pushed (read), or popped and peeked
  // into the buffer (written; zeroed when the map is empty). Pop and peek
  // take no packet memory, as the kernel's.
  H(87, "map_push_elem", V::Scalar, {V::Map, V::Ptr, V::Scalar}, true,
    {C::MapPtr, C::MapValue, C::Anything}, R::Scalar, {M::QueueStack, M::BloomFilter},
    E::ChangesMap);
  H(88, "map_pop_elem", V::Scalar, {V::Map, V::Ptr}, true, {C::MapPtr, C::MapValueOut},
    R::Scalar, {M::QueueStack}, E::ChangesMap, /*GplOnly=*/false, /*PacketAccess=*/false);
  H(89, "map_peek_elem", V::Scalar, {V::Map, V::Ptr}, true, {C::MapPtr, C::MapValueOut},
    R::Scalar, {M::QueueStack, M::BloomFilter}, E::None, /*GplOnly=*/false,
    /*PacketAccess=*/false);
  // The lock in a map value (its BTF's struct bpf_spin_lock): a spin on
  // the 4-byte word (compare-and-swap with backoff), released with a
  // store-release. While a lock is held no other helper may be called.
  H(93, "spin_lock", V::Void, {V::Ptr}, false, {C::SpinLock});
  H(94, "spin_unlock", V::Void, {V::Ptr}, false, {C::SpinUnlock});
}

/// XDP's helpers from bpf_jiffies64 (118) on.
void xdpHelpersFrom118(HelperRows &H) {
  H(118, "jiffies64", V::Scalar, {}, false, {});
  H(125, "ktime_get_boot_ns", V::Scalar, {}, false, {});
  // Event helpers see the context for the packet's index (record order).
  H(130, "ringbuf_output", V::Scalar, {V::Map, V::Ptr, V::Scalar, V::Scalar}, true,
    {C::MapPtr, C::Mem, C::ConstSizeOrZero, C::Scalar}, R::Scalar, {M::Ringbuf});
  H(131, "ringbuf_reserve", V::Ptr, {V::Map, V::Scalar, V::Scalar}, true,
    {C::MapPtr, C::AllocSize, C::Scalar}, R::AllocMemOrNull, {M::Ringbuf});
  H(132, "ringbuf_submit", V::Void, {V::Ptr, V::Scalar}, false, {C::ReleaseAlloc, C::Scalar});
  H(133, "ringbuf_discard", V::Void, {V::Ptr, V::Scalar}, false, {C::ReleaseAlloc, C::Scalar});
  // The ring's state as the host's reader leaves it: bytes in it, its
  // size, the reader's and the writers' positions (flags 0 to 3), else 0.
  H(134, "ringbuf_query", V::Scalar, {V::Map, V::Scalar}, false, {C::MapPtr, C::Anything},
    R::Scalar, {M::Ringbuf});
  // buf and its size (white space, a '-', then at most 63 bytes), the base
  // in the flags, the result written to an aligned u64 or s64: the bytes
  // read, or -EINVAL/-ERANGE. No packet memory, as the kernel's.
  H(105, "strtol", V::Scalar, {V::Ptr, V::Scalar, V::Scalar, V::Ptr}, false,
    {C::Mem, C::ConstSize, C::Anything, C::OutFixedMem}, R::Scalar, {}, E::None,
    /*GplOnly=*/false, /*PacketAccess=*/false, {0, 0, 0, 8});
  H(106, "strtoul", V::Scalar, {V::Ptr, V::Scalar, V::Scalar, V::Ptr}, false,
    {C::Mem, C::ConstSize, C::Anything, C::OutFixedMem}, R::Scalar, {}, E::None,
    /*GplOnly=*/false, /*PacketAccess=*/false, {0, 0, 0, 8});
  H(160, "ktime_get_coarse_ns", V::Scalar, {}, false, {});
  // Calls its callback (r2) with (map, key, value, r3) for each element
  // until it returns 1 (array: every index; hashed: every key, in bucket
  // order); flags 0 (-EINVAL). The lifter lowers it to a loop over the
  // map's elements (map_next_elem) calling the lifted subprogram.
  H(164, "for_each_map_elem", V::Scalar, {V::Map, V::Ptr, V::Ptr, V::Scalar}, true,
    {C::MapPtr, C::Callback, C::CallbackCtx, C::Scalar}, R::Scalar, {M::Iterable});
  // str and its size (0: the length alone), a constant format whose
  // conversions the verifier parses, and their u64 arguments: the kernel's
  // bpf_snprintf, the length the whole string needs with its NUL. No
  // packet memory, as the kernel's.
  H(165, "snprintf", V::Scalar, {V::Ptr, V::Scalar, V::Ptr, V::Ptr, V::Scalar}, false,
    {C::UninitMem, C::ConstSizeOrZero, C::FormatStr, C::FormatData, C::ConstSizeOrZero},
    R::Scalar, {}, E::None, /*GplOnly=*/true, /*PacketAccess=*/false);
  // bpf_trace_vprintk (libbpf's bpf_printk past three arguments): a
  // constant format and its size, and its u64 arguments as snprintf's;
  // the line goes to the trace log as trace_printk's.
  H(177, "trace_vprintk", V::Scalar, {V::Ptr, V::Scalar, V::Ptr, V::Scalar}, true,
    {C::FormatStr, C::ConstSize, C::FormatData, C::ConstSizeOrZero}, R::Scalar, {}, E::None,
    /*GplOnly=*/true, /*PacketAccess=*/false);
  // XDP's form: the flags must be 0 (no segment check), any other is -EINVAL.
  H(163, "check_mtu", V::Scalar, {V::Ctx, V::Scalar, V::Ptr, V::Scalar, V::Scalar}, false,
    {C::Ctx, C::Anything, C::InOutU32, C::Anything, C::Anything}, R::Scalar, {}, E::None,
    /*GplOnly=*/true);
  // s1 and its size, s2 a constant string: strncmp(s1, s2, s1_sz) as the
  // kernel's (-1, 0 or 1). s1 is not the packet: the kernel's has no
  // packet access.
  // Calls its callback (r2) with (i, r3) for i = 0.. until it returns 1;
  // at most 1 << 23 turns (-E2BIG), flags 0 (-EINVAL). The lifter lowers
  // it to a loop calling the lifted subprogram: no runtime function.
  H(181, "loop", V::Scalar, {V::Scalar, V::Ptr, V::Ptr, V::Scalar}, false,
    {C::Scalar, C::Callback, C::CallbackCtx, C::Scalar});
  H(182, "strncmp", V::Scalar, {V::Ptr, V::Scalar, V::Ptr}, false,
    {C::Mem, C::ConstSize, C::ConstStr}, R::Scalar, {}, E::None, /*GplOnly=*/false,
    /*PacketAccess=*/false);
  H(188, "xdp_get_buff_len", V::Scalar, {V::Ctx}, false, {C::Ctx});
  H(189, "xdp_load_bytes", V::Scalar, {V::Ctx, V::Scalar, V::Ptr, V::Scalar}, false,
    {C::Ctx, C::Scalar, C::UninitMem, C::ConstSize});
  // Writes packet bytes, moves nothing: packet pointers stay valid, as in
  // the kernel (not one of its helpers that change packet data).
  H(190, "xdp_store_bytes", V::Scalar, {V::Ctx, V::Scalar, V::Ptr, V::Scalar}, false,
    {C::Ctx, C::Scalar, C::Mem, C::ConstSize}, R::Scalar, {}, E::StoresPacket);
  // Its CPU argument may be past the last CPU: null whatever the key.
  H(195, "map_lookup_percpu_elem", V::Ptr, {V::Map, V::Ptr, V::Scalar}, true,
    {C::MapPtr, C::MapKey, C::Anything}, R::MapValueOrNull, {M::PerCpuData});
  // A dynptr's bytes copied out of or into the packet (dst, len, src,
  // offset, flags; dst, offset, src, len, flags), with the kernel's
  // return codes: a null dynptr or flags -EINVAL, past the dynptr -E2BIG,
  // then bpf_xdp_load_bytes' and _store_bytes' own. The write moves no
  // packet bytes (the kernel's changes_data only for skb dynptrs).
  H(201, "dynptr_read", V::Scalar, {V::Ptr, V::Scalar, V::Ptr, V::Scalar, V::Scalar}, false,
    {C::UninitMem, C::ConstSizeOrZero, C::Dynptr, C::Anything, C::Anything});
  H(202, "dynptr_write", V::Scalar, {V::Ptr, V::Scalar, V::Ptr, V::Scalar, V::Scalar}, false,
    {C::Dynptr, C::Anything, C::Mem, C::ConstSizeOrZero, C::Anything}, R::Scalar, {},
    E::StoresPacket);
  // A dynptr's bytes in place (ptr, offset, len): verified as a slice of
  // len bytes or null; an XDP dynptr's answer is always null (the kernel's
  // bpf_dynptr_data leaves packets to bpf_dynptr_slice).
  H(203, "dynptr_data", V::Ptr, {V::Ptr, V::Scalar, V::Scalar}, false,
    {C::Dynptr, C::Anything, C::AllocSize}, R::DynptrMemOrNull);
  // SYN cookies of raw headers (XDP SYN proxies): a whole IPv4 or IPv6
  // header, the TCP header and th_len (gen: 20 to 60 bytes, th->doff * 4,
  // else -EINVAL); gen returns the cookie with the MSS it encodes in the
  // upper 32 bits, check 0 or -EACCES. The secret is the runtime's
  // (SyncookieHelpers.inc).
  H(204, "tcp_raw_gen_syncookie_ipv4", V::Scalar, {V::Ptr, V::Ptr, V::Scalar}, false,
    {C::FixedMem, C::Mem, C::ConstSizeOrZero}, R::Scalar, {}, E::None, /*GplOnly=*/true,
    /*PacketAccess=*/true, {20, 0, 0});
  H(205, "tcp_raw_gen_syncookie_ipv6", V::Scalar, {V::Ptr, V::Ptr, V::Scalar}, false,
    {C::FixedMem, C::Mem, C::ConstSizeOrZero}, R::Scalar, {}, E::None, /*GplOnly=*/true,
    /*PacketAccess=*/true, {40, 0, 0});
  H(206, "tcp_raw_check_syncookie_ipv4", V::Scalar, {V::Ptr, V::Ptr}, false,
    {C::FixedMem, C::FixedMem}, R::Scalar, {}, E::None, /*GplOnly=*/true,
    /*PacketAccess=*/true, {20, 20});
  H(207, "tcp_raw_check_syncookie_ipv6", V::Scalar, {V::Ptr, V::Ptr}, false,
    {C::FixedMem, C::FixedMem}, R::Scalar, {}, E::None, /*GplOnly=*/true,
    /*PacketAccess=*/true, {40, 20});
  H(208, "ktime_get_tai_ns", V::Scalar, {}, false, {});
}

std::vector<HelperProto> xdpHelpers() {
  HelperRows H;
  xdpHelpersTo94(H);
  xdpHelpersFrom118(H);
  return std::move(H.Rows);
}

class XdpPlatform final : public Platform {
public:
  XdpPlatform() {
    auto Field = [&](const char *Name, uint32_t Off, uint32_t RtOff, bool Ptr,
                     bool DevmapOnly = false) {
      Fields.push_back({Name, Off, 4, RtOff, Ptr ? 8u : 4u, Ptr, DevmapOnly});
    };
    Field("data", 0, offsetof(XdpRuntimeContext, data), true);
    Field("data_end", 4, offsetof(XdpRuntimeContext, data_end), true);
    Field("data_meta", 8, offsetof(XdpRuntimeContext, data_meta), true);
    Field("ingress_ifindex", 12, offsetof(XdpRuntimeContext, ingress_ifindex), false);
    Field("rx_queue_index", 16, offsetof(XdpRuntimeContext, rx_queue_index), false);
    Field("egress_ifindex", 20, offsetof(XdpRuntimeContext, egress_ifindex), false,
          /*DevmapOnly=*/true);

    Helpers = xdpHelpers();
  }

  PlatformKind kind() const override { return PlatformKind::Xdp; }
  bool hasContext() const override { return true; }

  const ContextField *contextField(int64_t Offset, unsigned Size) const override {
    for (const ContextField &F : Fields)
      if (F.Offset == Offset && F.Size == Size)
        return &F;
    return nullptr;
  }

  const HelperProto *helper(int32_t Id) const override {
    auto It = std::find_if(Helpers.begin(), Helpers.end(),
                           [&](const HelperProto &H) { return H.Id == Id; });
    return It == Helpers.end() ? nullptr : &*It;
  }

  const std::vector<HelperProto> &helpers() const override { return Helpers; }

  // The kernel offers the bpf_iter_num kfuncs to every program type, and
  // bpf_dynptr_from_xdp, the slices and the RX metadata kfuncs to XDP
  // programs; ebpf-gpu offers
  // ebpf_gpu_match, ebpf_gpu_match_all and ebpf_gpu_classify to XDP
  // programs.
  const KfuncProto *kfunc(int32_t Id) const override {
    const std::vector<KfuncProto> &K = knownKfuncs();
    auto It = std::find_if(K.begin(), K.end(), [&](const KfuncProto &F) { return F.Id == Id; });
    return It == K.end() ? nullptr : &*It;
  }

private:
  std::vector<ContextField> Fields;
  std::vector<HelperProto> Helpers;
};

class RawPlatform final : public Platform {
public:
  RawPlatform() { Helpers = {{5, "identity", V::Scalar, {V::Scalar}, false, {ArgCheck::Anything}}}; }

  PlatformKind kind() const override { return PlatformKind::Raw; }
  bool hasContext() const override { return false; }
  const ContextField *contextField(int64_t, unsigned) const override {
    return nullptr;
  }
  const HelperProto *helper(int32_t Id) const override {
    return Id == 5 ? &Helpers[0] : nullptr;
  }
  const std::vector<HelperProto> &helpers() const override { return Helpers; }

private:
  std::vector<HelperProto> Helpers;
};

} // namespace

const std::vector<KfuncProto> &knownKfuncs() {
  // bpf_for() and bpf_repeat() (libbpf's bpf_helpers.h): struct bpf_iter_num
  // is 8 bytes (the kernel's struct bpf_iter_num_kern { int cur, end; }).
  using K = KfuncRole;
  // Columns: id, name, role, the stack object's bytes, an element's bytes,
  // the register of the object, the arguments taken.
  static const std::vector<KfuncProto> Table = {
      {1, "bpf_iter_num_new", K::IterNew, 8, 0, 1, 3},
      {2, "bpf_iter_num_next", K::IterNext, 8, 4, 1, 1},
      {3, "bpf_iter_num_destroy", K::IterDestroy, 8, 0, 1, 1},
      // struct bpf_dynptr is 16 bytes (the kernel's struct bpf_dynptr_kern
      // { void *data; u32 size; u32 offset; }); GpuAbi.h's ebpfgpu_dynptr.
      {4, "bpf_dynptr_from_xdp", K::DynptrFromXdp, 16, 0, 3, 3},
      {5, "bpf_dynptr_slice", K::DynptrSlice, 16, 0, 1, 4},
      {6, "bpf_dynptr_slice_rdwr", K::DynptrSliceRdwr, 16, 0, 1, 4},
      {7, "bpf_dynptr_size", K::DynptrSize, 16, 0, 1, 1},
      {8, "bpf_dynptr_is_null", K::DynptrIsNull, 16, 0, 1, 1},
      {9, "bpf_dynptr_is_rdonly", K::DynptrIsRdonly, 16, 0, 1, 1},
      {10, "bpf_dynptr_adjust", K::DynptrAdjust, 16, 0, 1, 3},
      {16, "bpf_dynptr_clone", K::DynptrClone, 16, 0, 1, 2},
      {17, "bpf_dynptr_copy", K::DynptrCopy, 16, 0, 1, 5},
      {18, "bpf_dynptr_memset", K::DynptrMemset, 16, 0, 1, 4},
      // ebpf-gpu's own (kfuncs.h): no stack object.
      {11, "ebpf_gpu_match", K::PatternMatch, 0, 0, 1, 3},
      // The XDP RX metadata kfuncs (the kernel's net/core/xdp.c): the
      // timestamp's u64, the hash's u32 and enum xdp_rss_hash_type, the
      // VLAN tag's __be16 protocol and u16 TCI.
      {12, "bpf_xdp_metadata_rx_timestamp", K::RxMetadata, 0, 0, 1, 2, {8, 0}},
      {13, "bpf_xdp_metadata_rx_hash", K::RxMetadata, 0, 0, 1, 3, {4, 4}},
      {14, "bpf_xdp_metadata_rx_vlan_tag", K::RxMetadata, 0, 0, 1, 3, {2, 2}},
      // ebpf-gpu's own (kfuncs.h), continued.
      {15, "ebpf_gpu_classify", K::Classify, 0, 0, 1, 3},
      {19, "ebpf_gpu_match_all", K::PatternMatchAll, 0, 0, 1, 5},
      // The kernel's (net/core/filter.c, 6.18): makes the first bytes of
      // a multi-buffer packet linear.
      {20, "bpf_xdp_pull_data", K::PullData, 0, 0, 1, 2},
      // The kernel's RCU read-side region (kernel/bpf/helpers.c): checked
      // as the kernel checks it, nothing to do at run time (docs/MAPS.md).
      {21, "bpf_rcu_read_lock", K::RcuReadLock, 0, 0, 0, 0},
      {22, "bpf_rcu_read_unlock", K::RcuReadUnlock, 0, 0, 0, 0},
  };
  return Table;
}

std::string unsupportedHelper(const Platform &P, int32_t Id) {
  // The kernel's helpers in id order (the mapper puts a comma after each).
#define EBPFGPU_HELPER_NAME(Name) #Name
  static const char *const Names[] = {__BPF_FUNC_MAPPER(EBPFGPU_HELPER_NAME)};
#undef EBPFGPU_HELPER_NAME
  std::string Where = std::string(" is not supported for ") + P.name() + " programs";
  if (Id <= 0 || size_t(Id) >= std::size(Names))
    return "helper function " + std::to_string(Id) + Where;
  std::string Name = Names[Id];
  std::string Out = "bpf_" + Name + " (helper " + std::to_string(Id) + ")" + Where;
  // The kernel's socket helpers look up, take or release a socket of its
  // network stack: no socket exists for a packet ebpf-gpu runs.
  bool Socket = Name.rfind("sk_", 0) == 0 || Name.rfind("skc_", 0) == 0 ||
                Name.find("sock") != std::string::npos || Name == "tcp_check_syncookie" ||
                Name == "tcp_gen_syncookie";
  if (!Socket || P.kind() != PlatformKind::Xdp)
    return Out;
  Out += ": it works on sockets of the kernel's network stack, which packets run by ebpf-gpu "
         "never reach";
  if (Name.find("syncookie") != std::string::npos)
    Out += " (bpf_tcp_raw_gen_syncookie_ipv4/_ipv6 and bpf_tcp_raw_check_syncookie_ipv4/_ipv6 "
           "need none)";
  return Out;
}

const KfuncProto *kfuncByName(const std::string &Name) {
  for (const KfuncProto &K : knownKfuncs())
    if (K.Name == Name)
      return &K;
  return nullptr;
}

bool isDevmapSection(const std::string &Section) {
  return Section == "xdp/devmap" || Section == "xdp.frags/devmap";
}

MapFamily mapFamily(uint32_t Type) {
  switch (Type) {
  case EBPFGPU_MAP_DEVMAP:
  case EBPFGPU_MAP_DEVMAP_HASH:
  case EBPFGPU_MAP_CPUMAP:
  case EBPFGPU_MAP_XSKMAP:
    return MapFamily::Redirect;
  case EBPFGPU_MAP_ARRAY_OF_MAPS:
  case EBPFGPU_MAP_HASH_OF_MAPS:
    return MapFamily::MapOfMaps;
  case EBPFGPU_MAP_PROG_ARRAY:
    return MapFamily::ProgArray;
  case EBPFGPU_MAP_PERF_EVENT_ARRAY:
    return MapFamily::PerfEventArray;
  case EBPFGPU_MAP_RINGBUF:
    return MapFamily::Ringbuf;
  case EBPFGPU_MAP_QUEUE:
  case EBPFGPU_MAP_STACK:
    return MapFamily::QueueStack;
  case EBPFGPU_MAP_BLOOM_FILTER:
    return MapFamily::BloomFilter;
  case EBPFGPU_MAP_PATTERNS:
    return MapFamily::Patterns;
  case EBPFGPU_MAP_MODEL:
    return MapFamily::Model;
  default:
    return MapFamily::Data;
  }
}

bool mapInFamily(uint32_t Type, MapFamily F) {
  if (F == MapFamily::PerCpuData)
    return ebpfgpu_map_is_percpu(Type);
  if (F == MapFamily::LookupRedirect)
    return mapFamily(Type) == MapFamily::Redirect && Type != EBPFGPU_MAP_CPUMAP;
  if (F == MapFamily::Iterable)
    return Type == EBPFGPU_MAP_ARRAY || Type == EBPFGPU_MAP_PERCPU_ARRAY ||
           Type == EBPFGPU_MAP_HASH || Type == EBPFGPU_MAP_PERCPU_HASH ||
           Type == EBPFGPU_MAP_LRU_HASH || Type == EBPFGPU_MAP_LRU_PERCPU_HASH;
  return mapFamily(Type) == F;
}

const Platform &xdpPlatform() {
  static const XdpPlatform P;
  return P;
}

const Platform &rawPlatform() {
  static const RawPlatform P;
  return P;
}

const Platform *findPlatform(const std::string &Name) {
  std::optional<PlatformKind> K = valueOf(PlatformWords, Name);
  if (!K)
    return nullptr;
  return *K == PlatformKind::Xdp ? &xdpPlatform() : &rawPlatform();
}

} // namespace ebpfgpu::platform
