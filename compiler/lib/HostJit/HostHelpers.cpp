// SPDX-License-Identifier: Apache-2.0
//
// The host build of the helper functions (XdpHelpers.inc), and the table
// the host JIT binds them from.

#include "ebpf-gpu/Compiler/HostJit.h"
#include "ebpf-gpu/Platform/FibAbi.h"
#include "ebpf-gpu/Platform/MapAbi.h"
#include "ebpf-gpu/Abi/HelperDefs.h"
#include "ebpf-gpu/Abi/SyncookieSecret.h"

#include <cstring>
#include <ctime>
#include <map>
#include <sched.h>

namespace ebpfgpu::compiler {

namespace {

uint64_t nowNs(int Clock) {
  timespec Ts;
  clockid_t Id = Clock == EBPFGPU_CLOCK_BOOT     ? CLOCK_BOOTTIME
                 : Clock == EBPFGPU_CLOCK_COARSE ? CLOCK_MONOTONIC_COARSE
                 : Clock == EBPFGPU_CLOCK_TAI    ? CLOCK_TAI
                                                 : CLOCK_MONOTONIC;
  clock_gettime(Id, &Ts);
  return uint64_t(Ts.tv_sec) * 1000000000ull + uint64_t(Ts.tv_nsec);
}

/// The NUMA node of the CPU the calling thread runs on, as the kernel's
/// numa_node_id() for the CPU that runs a program.
uint64_t numaNode() {
  unsigned Cpu = 0, Node = 0;
  if (getcpu(&Cpu, &Node) != 0)
    return 0; // no NUMA information: one node, as a kernel without NUMA
  return Node;
}

using std::memcpy;
using std::memmove;
using std::memset;

#define EBPFGPU_HELPER(Name) ebpfgpu_host_##Name
#define EBPFGPU_NOW_NS(Clock) nowNs(Clock)
#define EBPFGPU_NUMA_NODE() numaNode()
#define EBPFGPU_FENCE() __atomic_thread_fence(__ATOMIC_ACQ_REL)
#define EBPFGPU_SPIN_PAUSE(spins) ((void)(spins), __builtin_ia32_pause())
uint32_t ebpfgpu_load_acquire(uint32_t *P) { return __atomic_load_n(P, __ATOMIC_ACQUIRE); }
void ebpfgpu_store_release(uint32_t *P, uint32_t V) { __atomic_store_n(P, V, __ATOMIC_RELEASE); }
extern "C" {
#include "../Runtime/XdpHelpers.inc"
#include "../Runtime/FormatHelpers.inc"
#define EBPFGPU_SYNCOOKIE_SECRET() ::ebpfgpu::abi::syncookieSecret()
#include "../Runtime/SyncookieHelpers.inc"
#include "ebpf-gpu/Abi/MapHelpers.inc"
#include "../Runtime/FibHelpers.inc"
#include "../Runtime/EventHelpers.inc"
}

} // namespace

void *hostHelperAddress(const std::string &Name) {
#define ENTRY(Name) {#Name, reinterpret_cast<void *>(&ebpfgpu_host_##Name)}
  static const std::map<std::string, void *> Table = {
      ENTRY(identity),        ENTRY(ktime_get_ns),         ENTRY(ktime_get_boot_ns),
      ENTRY(get_prandom_u32), ENTRY(get_smp_processor_id), ENTRY(redirect),
      ENTRY(xdp_adjust_head), ENTRY(xdp_adjust_meta),      ENTRY(xdp_adjust_tail),
      ENTRY(xdp_load_bytes),  ENTRY(xdp_store_bytes),      ENTRY(csum_diff),
      ENTRY(map_lookup_elem), ENTRY(map_update_elem),      ENTRY(map_delete_elem),
      ENTRY(redirect_map),    ENTRY(trace_printk),         ENTRY(tail_call),
      ENTRY(known_redirect_map),
      ENTRY(array_lookup_elem), ENTRY(hash_lookup_elem),   ENTRY(lpm_lookup_elem),
      ENTRY(array_update_elem), ENTRY(hash_update_elem),   ENTRY(lpm_update_elem),
      ENTRY(array_delete_elem), ENTRY(hash_delete_elem),   ENTRY(lpm_delete_elem),
      ENTRY(fib_lookup),
      ENTRY(ringbuf_output),  ENTRY(ringbuf_reserve),      ENTRY(ringbuf_submit),
      ENTRY(ringbuf_discard), ENTRY(perf_event_output),    ENTRY(jiffies64),
      ENTRY(ktime_get_coarse_ns), ENTRY(ktime_get_tai_ns), ENTRY(get_numa_node_id),
      ENTRY(xdp_get_buff_len), ENTRY(check_mtu),       ENTRY(map_lookup_percpu_elem),
      ENTRY(strncmp),         ENTRY(snprintf),             ENTRY(trace_vprintk),
      ENTRY(strtol),          ENTRY(strtoul),              ENTRY(ringbuf_query),
      ENTRY(tcp_raw_gen_syncookie_ipv4),   ENTRY(tcp_raw_gen_syncookie_ipv6),
      ENTRY(tcp_raw_check_syncookie_ipv4), ENTRY(tcp_raw_check_syncookie_ipv6),
      ENTRY(map_push_elem),   ENTRY(map_pop_elem),         ENTRY(map_peek_elem),
      ENTRY(map_next_elem),
      ENTRY(spin_lock),       ENTRY(spin_unlock),
      ENTRY(dynptr_from_xdp), ENTRY(dynptr_slice),         ENTRY(dynptr_slice_rdwr),
      ENTRY(dynptr_read),     ENTRY(dynptr_write),         ENTRY(dynptr_data),
      ENTRY(dynptr_size),
      ENTRY(dynptr_is_null),  ENTRY(dynptr_is_rdonly),     ENTRY(dynptr_adjust),
      ENTRY(dynptr_clone),    ENTRY(dynptr_copy),          ENTRY(dynptr_memset),
      ENTRY(match),           ENTRY(classify),             ENTRY(match_all),
      ENTRY(xdp_metadata_rx_timestamp), ENTRY(xdp_metadata_rx_hash),
      ENTRY(xdp_metadata_rx_vlan_tag), ENTRY(xdp_pull_data),
  };
#undef ENTRY
  auto It = Table.find(Name);
  return It == Table.end() ? nullptr : It->second;
}

} // namespace ebpfgpu::compiler
