// bpf_spin_lock / bpf_spin_unlock (helpers 93, 94), as the kernel's: a
// lock in each map value (the value's struct bpf_spin_lock, found from
// the map's BTF; here at offset 8, not the value's start), taken and
// released around a read-modify-write of the value's counters, in an
// array. Each packet counts itself under the lock of its length's slot
// and, as a check, with an atomic add in another map: under the lock no
// increment is lost, so the two agree (on the GPU under 65,536 threads a
// launch: tests/gpu-device/stress/spin-lock.test). The lock word reads
// as zero in the dump (no program holds it between runs; the kernel
// zeroes it when it copies a value out). Host and kernel agree on every
// packet's verdict and the maps; the verifier's refusals:
// tests/lit/verifier/spin-lock.c.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 2000 --seed 4
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host --dump-maps %t.maps | FileCheck %s
// CHECK: XDP_PASS 2000
// RUN: FileCheck %s --check-prefix=MAPS < %t.maps
// MAPS: checks[0] =
// MAPS: counters[0] =
// RUN: %python %S/../../gpu-device/Inputs/spin-lock-counts.py %t.maps | FileCheck %s --check-prefix=COUNTS
// COUNTS: 2000 packets counted under the lock, none lost
// RUN: ebpf-gpu-cc %t.o --emit=ptx --target=sm_90 -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: ebpf-gpu-cc %t.o -o %t.gpu.o
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader \
// RUN:   --pcap %t.pcap --work %t.d %t.o:locked_count | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: locked_count: 2000 packets, host and kernel agree
// A value set from user space (--map-set, as the daemon's map update and the
// C API's update_elem) leaves the lock word as the map has it, as the
// kernel's update does: here the value given holds ff bytes where the lock
// is, the run takes the lock 2000 times (a held lock would wait forever:
// before this, the run hung), the count starts at 5 (5 + 1122 = 0x467 for
// slot 0), and the lock reads 0.
// RUN: timeout 60 ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host --dump-maps %t.set.maps \
// RUN:   --map-set counters:00000000:0500000000000000ffffffff000000000000000000000000 | FileCheck %s
// RUN: FileCheck %s --check-prefix=SET < %t.set.maps
// SET: checks[0] = 1122
// SET: counters[0] = 6704000000000000000000000000000078a1010000000000{{$}}
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader --pcap %t.pcap \
// RUN:   --work %t.set.d --loader-arg=--map-set \
// RUN:   --loader-arg=counters:00000000:0500000000000000ffffffff000000000000000000000000 \
// RUN:   %t.o:locked_count | FileCheck %s --check-prefix=KERNEL %}
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

struct counter {
  __u64 count;
  struct bpf_spin_lock lock;
  __u32 pad;
  __u64 bytes;
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, struct counter);
} counters SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, __u64);
} checks SEC(".maps");

SEC("xdp") int locked_count(struct xdp_md *ctx) {
  __u64 len = ctx->data_end - ctx->data;
  __u32 k = len % 4;
  struct counter *c = bpf_map_lookup_elem(&counters, &k);
  __u64 *a = bpf_map_lookup_elem(&checks, &k);
  if (!c || !a)
    return XDP_ABORTED;
  bpf_spin_lock(&c->lock);
  // Plain read-modify-writes: only the lock keeps them whole.
  __u64 n = c->count;
  c->count = n + 1;
  c->bytes += len;
  bpf_spin_unlock(&c->lock);
  __sync_fetch_and_add(a, 1);
  return XDP_PASS;
}
