// SPDX-License-Identifier: Apache-2.0
//
// Host implementations of the helper functions, with the kernel's
// semantics (return codes, bounds rules of bpf_xdp_adjust_*). Each takes
// the arguments the platform's prototype gives it; the context, where
// passed, is the runtime's XdpRuntimeContext.

#include "ebpf-gpu/Compiler/HostJit.h"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <map>

namespace ebpfgpu::compiler {

namespace {

using platform::XdpRuntimeContext;

constexpr int64_t EthHeaderLen = 14;
constexpr int64_t MaxMetaLen = 32;
constexpr uint64_t XdpAborted = 0, XdpRedirect = 4;

uint64_t clockNs(clockid_t Clock) {
  timespec Ts;
  clock_gettime(Clock, &Ts);
  return uint64_t(Ts.tv_sec) * 1000000000ull + uint64_t(Ts.tv_nsec);
}

extern "C" {

uint64_t ebpfgpu_host_identity(uint64_t V) { return V; }

uint64_t ebpfgpu_host_ktime_get_ns() { return clockNs(CLOCK_MONOTONIC); }
uint64_t ebpfgpu_host_ktime_get_boot_ns() { return clockNs(CLOCK_BOOTTIME); }

uint64_t ebpfgpu_host_get_prandom_u32(XdpRuntimeContext *C) {
  // splitmix64 step: cheap, stateless apart from the per-packet seed.
  uint64_t Z = (C->RandomState += 0x9e3779b97f4a7c15ull);
  Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ull;
  Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebull;
  return uint32_t(Z ^ (Z >> 31));
}

uint64_t ebpfgpu_host_get_smp_processor_id(XdpRuntimeContext *C) { return C->CpuId; }

uint64_t ebpfgpu_host_redirect(XdpRuntimeContext *C, uint64_t Ifindex, uint64_t Flags) {
  if (Flags != 0)
    return XdpAborted;
  C->RedirectTarget = uint32_t(Ifindex);
  return XdpRedirect;
}

int64_t ebpfgpu_host_xdp_adjust_head(XdpRuntimeContext *C, int64_t Delta) {
  int64_t Delta32 = int32_t(Delta);
  uint64_t MetaLen = C->Data - C->DataMeta;
  uint64_t NewData = C->Data + uint64_t(Delta32);
  if (NewData - MetaLen < C->BufferStart || int64_t(C->DataEnd - NewData) < EthHeaderLen ||
      NewData > C->DataEnd)
    return -EINVAL;
  if (MetaLen)
    std::memmove(reinterpret_cast<void *>(C->DataMeta + uint64_t(Delta32)),
                 reinterpret_cast<void *>(C->DataMeta), MetaLen);
  C->DataMeta += uint64_t(Delta32);
  C->Data = NewData;
  return 0;
}

int64_t ebpfgpu_host_xdp_adjust_meta(XdpRuntimeContext *C, int64_t Delta) {
  uint64_t Meta = C->DataMeta + uint64_t(int64_t(int32_t(Delta)));
  if (Meta < C->BufferStart || Meta > C->Data)
    return -EINVAL;
  uint64_t Len = C->Data - Meta;
  if (Len & 3)
    return -EINVAL;
  if (int64_t(Len) > MaxMetaLen)
    return -EACCES;
  C->DataMeta = Meta;
  return 0;
}

int64_t ebpfgpu_host_xdp_adjust_tail(XdpRuntimeContext *C, int64_t Delta) {
  int64_t Delta32 = int32_t(Delta);
  uint64_t NewEnd = C->DataEnd + uint64_t(Delta32);
  if (NewEnd > C->BufferEnd || int64_t(NewEnd - C->Data) < EthHeaderLen || NewEnd < C->Data)
    return -EINVAL;
  if (Delta32 > 0)
    std::memset(reinterpret_cast<void *>(C->DataEnd), 0, size_t(Delta32));
  C->DataEnd = NewEnd;
  return 0;
}

int64_t ebpfgpu_host_xdp_load_bytes(XdpRuntimeContext *C, uint64_t Off, void *Buf,
                                    uint64_t Len) {
  uint64_t Size = C->DataEnd - C->Data;
  Off = uint32_t(Off);
  Len = uint32_t(Len);
  if (Len == 0 || Off > Size || Len > Size - Off)
    return -EFAULT;
  std::memcpy(Buf, reinterpret_cast<void *>(C->Data + Off), Len);
  return 0;
}

int64_t ebpfgpu_host_xdp_store_bytes(XdpRuntimeContext *C, uint64_t Off, const void *Buf,
                                     uint64_t Len) {
  uint64_t Size = C->DataEnd - C->Data;
  Off = uint32_t(Off);
  Len = uint32_t(Len);
  if (Len == 0 || Off > Size || Len > Size - Off)
    return -EFAULT;
  std::memcpy(reinterpret_cast<void *>(C->Data + Off), Buf, Len);
  return 0;
}

int64_t ebpfgpu_host_csum_diff(const uint32_t *From, uint64_t FromSize, const uint32_t *To,
                               uint64_t ToSize, uint64_t Seed) {
  FromSize = uint32_t(FromSize);
  ToSize = uint32_t(ToSize);
  if ((FromSize | ToSize) & 3 || FromSize + ToSize > 512 ||
      (FromSize && !From) || (ToSize && !To))
    return -EINVAL;
  uint64_t Sum = uint32_t(Seed);
  for (uint64_t I = 0; I < FromSize / 4; ++I) {
    uint32_t W;
    std::memcpy(&W, From + I, 4);
    Sum += uint32_t(~W);
  }
  for (uint64_t I = 0; I < ToSize / 4; ++I) {
    uint32_t W;
    std::memcpy(&W, To + I, 4);
    Sum += W;
  }
  while (Sum >> 32)
    Sum = (Sum & 0xffffffffull) + (Sum >> 32);
  return int64_t(Sum);
}

} // extern "C"

} // namespace

void *hostHelperAddress(const std::string &Name) {
  static const std::map<std::string, void *> Table = {
      {"identity", reinterpret_cast<void *>(&ebpfgpu_host_identity)},
      {"ktime_get_ns", reinterpret_cast<void *>(&ebpfgpu_host_ktime_get_ns)},
      {"ktime_get_boot_ns", reinterpret_cast<void *>(&ebpfgpu_host_ktime_get_boot_ns)},
      {"get_prandom_u32", reinterpret_cast<void *>(&ebpfgpu_host_get_prandom_u32)},
      {"get_smp_processor_id", reinterpret_cast<void *>(&ebpfgpu_host_get_smp_processor_id)},
      {"redirect", reinterpret_cast<void *>(&ebpfgpu_host_redirect)},
      {"xdp_adjust_head", reinterpret_cast<void *>(&ebpfgpu_host_xdp_adjust_head)},
      {"xdp_adjust_meta", reinterpret_cast<void *>(&ebpfgpu_host_xdp_adjust_meta)},
      {"xdp_adjust_tail", reinterpret_cast<void *>(&ebpfgpu_host_xdp_adjust_tail)},
      {"xdp_load_bytes", reinterpret_cast<void *>(&ebpfgpu_host_xdp_load_bytes)},
      {"xdp_store_bytes", reinterpret_cast<void *>(&ebpfgpu_host_xdp_store_bytes)},
      {"csum_diff", reinterpret_cast<void *>(&ebpfgpu_host_csum_diff)},
  };
  auto It = Table.find(Name);
  return It == Table.end() ? nullptr : It->second;
}

} // namespace ebpfgpu::compiler
