// The kfuncs bpf_rcu_read_lock and bpf_rcu_read_unlock, checked as the
// kernel checks them: one region at a time, no unlock outside one, closed
// before the program exits and not left by a tail call; a region may span
// a subprogram call, and a callback's region ends with its turn (bpf_loop:
// what the callback opens or closes is not the caller's). The kernel here
// gives the same answer on every program, with the same message; the
// accepted ones run alike on the host and the kernel. At run time they do
// nothing: no map element is reused while a batch runs (docs/MAPS.md).
// RUN: %clang-bpf -c %s -o %t.o
// RUN: %clang-bpf -DTAIL -c %s -o %t.tail.o
// RUN: ebpf-gpu-cc %t.o --section counted -o %t.counted.gpu.o
// RUN: ebpf-gpu-cc %t.o --section across -o %t.across.gpu.o
// RUN: ebpf-gpu-cc %t.o --section in_callback -o %t.cb.gpu.o
// RUN: not ebpf-gpu-cc %t.o --section nested 2>&1 | FileCheck %s --check-prefix=NESTED
// NESTED: rcu.c:[[@LINE+60]]: pc 1: nested rcu read lock (kernel function bpf_rcu_read_lock) (!rcu_locked)
// RUN: not ebpf-gpu-cc %t.o --section unmatched 2>&1 | FileCheck %s --check-prefix=UNMATCHED
// UNMATCHED: pc 0: unmatched rcu read unlock (kernel function bpf_rcu_read_unlock) (rcu_locked)
// RUN: not ebpf-gpu-cc %t.o --section missing 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: BPF_EXIT instruction in main prog cannot be used inside bpf_rcu_read_lock-ed region: bpf_rcu_read_unlock is missing on this path (rcu_unlocked(exit))
// RUN: not ebpf-gpu-cc %t.tail.o --section tail 2>&1 | FileCheck %s --check-prefix=TAIL
// TAIL: tail_call cannot be used inside bpf_rcu_read_lock-ed region (rcu_unlocked(tail_call))
// RUN: not ebpf-gpu-cc %t.o --section callback_leak 2>&1 | FileCheck %s --check-prefix=CBLEAK
// CBLEAK: unmatched rcu read unlock (kernel function bpf_rcu_read_unlock)
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 50 --seed 3
// RUN: ebpf-gpu-loader run %t.o --section counted --pcap %t.pcap --backend host --dump-maps %t.maps | FileCheck %s --check-prefix=COUNTED
// RUN: FileCheck %s --check-prefix=MAPS < %t.maps
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.counted.gpu.o --pcap %t.pcap --dump-maps %t.gpu.maps | FileCheck %s --check-prefix=COUNTED %}
// RUN: %if cuda-gpu %{ diff %t.maps %t.gpu.maps %}
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --pcap %t.pcap | FileCheck %s --check-prefix=KERNEL %}
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.tail.o --pcap %t.pcap | FileCheck %s --check-prefix=KTAIL %}
// COUNTED: XDP_PASS 50
// MAPS: hits[0] = 50
// MAPS: hits[1] = 50
// KERNEL: nested: neither: {{.*}}nested rcu read lock (kernel function bpf_rcu_read_lock)
// KERNEL: unmatched: neither: {{.*}}unmatched rcu read unlock (kernel function bpf_rcu_read_unlock)
// KERNEL: missing: neither: {{.*}}BPF_EXIT instruction in main prog cannot be used inside bpf_rcu_read_lock-ed region
// KERNEL: counted: both: 50 packets, host and kernel agree
// KERNEL: across: both: 50 packets, host and kernel agree
// KERNEL: in_callback: both: 50 packets, host and kernel agree
// KTAIL: tail: neither: {{.*}}tail_call cannot be used inside bpf_rcu_read_lock-ed region
// KERNEL: callback_leak: neither: {{.*}}unmatched rcu read unlock (kernel function bpf_rcu_read_unlock)
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 2);
  __type(key, __u32);
  __type(value, __u64);
} hits SEC(".maps");

#ifdef TAIL
// Alone in its object: a program array makes every program of the
// object one set.
struct {
  __uint(type, BPF_MAP_TYPE_PROG_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u32);
} jumps SEC(".maps");

SEC("xdp") int tail(struct xdp_md *ctx) {
  bpf_rcu_read_lock();
  bpf_tail_call(ctx, &jumps, 0);
  bpf_rcu_read_unlock();
  return XDP_PASS;
}
#else

SEC("xdp") int nested(struct xdp_md *ctx) {
  bpf_rcu_read_lock();
  bpf_rcu_read_lock();
  bpf_rcu_read_unlock();
  bpf_rcu_read_unlock();
  return XDP_PASS;
}

SEC("xdp") int unmatched(struct xdp_md *ctx) {
  bpf_rcu_read_unlock();
  return XDP_PASS;
}

SEC("xdp") int missing(struct xdp_md *ctx) {
  bpf_rcu_read_lock();
  if (ctx->rx_queue_index)
    bpf_rcu_read_unlock();
  return XDP_PASS;
}


static __always_inline void count(__u32 k) {
  __u64 *v = bpf_map_lookup_elem(&hits, &k);
  if (v)
    __sync_fetch_and_add(v, 1);
}

// A map lookup and an atomic add inside the region.
SEC("xdp") int counted(struct xdp_md *ctx) {
  bpf_rcu_read_lock();
  count(0);
  bpf_rcu_read_unlock();
  count(1);
  return XDP_PASS;
}

// Opened here, closed in the subprogram.
static __noinline int close_and_count(__u32 k) {
  bpf_rcu_read_unlock();
  count(k);
  return XDP_PASS;
}

SEC("xdp") int across(struct xdp_md *ctx) {
  bpf_rcu_read_lock();
  return close_and_count(ctx->rx_queue_index & 1);
}

static int open_close(__u32 i, void *data) {
  bpf_rcu_read_lock();
  count(0);
  bpf_rcu_read_unlock();
  return 0;
}

static int open_only(__u32 i, void *data) {
  bpf_rcu_read_lock();
  return 0;
}

SEC("xdp") int in_callback(struct xdp_md *ctx) {
  bpf_loop(2, open_close, 0, 0);
  return XDP_PASS;
}

// The callback's region is not the caller's: the unlock after the loop
// has none to close.
SEC("xdp") int callback_leak(struct xdp_md *ctx) {
  bpf_loop(2, open_only, 0, 0);
  bpf_rcu_read_unlock();
  return XDP_PASS;
}

#endif

char _license[] SEC("license") = "GPL";
