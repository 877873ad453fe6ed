// Map values start 8-byte aligned in every runtime layout, so the lifter
// gives accesses at known offsets from a lookup's result the alignment of
// their offset: a u64 per-CPU counter is one 64-bit load and store, fields
// of a struct value load at their width. (Claiming 1 byte made NVPTX split
// each u64 into eight byte loads and eight byte stores.) The host back end
// runs the same accesses: the counters must come out as the kernel's.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-cc %t.o --emit=ptx --target=sm_90 -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// PTX-LABEL: .entry ebpfgpu_xdp_batch(
// PTX-NOT: ld.u8
// PTX-NOT: st.u8
// PTX-NOT: .local
// PTX: ret;
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 50 --seed 4
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host --dump-maps %t.maps
// RUN: FileCheck %s < %t.maps
// RUN: %if kernel-bpf %{ %python %S/../loader/Inputs/differential.py --loader ebpf-gpu-loader \
// RUN:   --pcap %t.pcap --work %t.d %t.o:count | FileCheck %s --check-prefix=KERNEL %}
// CHECK: counts[0] = 50
// CHECK: fields[0] = {{.*}}
// KERNEL: count: 50 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct fields {
  __u16 a, b;
  __u32 c;
  __u64 d;
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 2);
  __type(key, __u32);
  __type(value, __u64);
} counts SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct fields);
} fields SEC(".maps");

SEC("xdp")
int count(struct xdp_md *ctx) {
  __u32 k = 0;
  __u64 *n = bpf_map_lookup_elem(&counts, &k);
  if (n)
    *n += 1;
  struct fields *f = bpf_map_lookup_elem(&fields, &k);
  if (f) {
    f->b += 1;
    f->c += ctx->data_end - ctx->data;
    __sync_fetch_and_add(&f->d, 3);
  }
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
