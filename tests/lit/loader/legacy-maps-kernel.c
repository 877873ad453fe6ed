// Objects with legacy map definitions (`struct bpf_map_def SEC("maps")`, as
// xdp-tutorial and the kernel's samples/bpf still have them) run on the host
// and GPU back ends as they are. libbpf 1.x will not open them, so the
// kernel back end loads them with ebpf-gpu's own loader (the object reader's
// maps created through the kernel's system calls): host = kernel on the
// object itself. scripts/realworld.py btf-maps writes the same source with
// BTF-defined maps, which libbpf loads: the kernel gives the same results
// on both (differential.py OBJ_A,OBJ_B:PROG).
// RUN: %clang-bpf -c %s -o %t.o
// RUN: %python %src/scripts/realworld.py btf-maps %s 2>%t.count > %t.btf.c
// RUN: FileCheck %s --check-prefix=COUNT < %t.count
// RUN: FileCheck %s --check-prefix=BTF < %t.btf.c
// RUN: %clang-bpf -c %t.btf.c -o %t.btf.o
// RUN: ebpf-gpu-cc %t.o --emit=maps | FileCheck %s --check-prefix=MAPS
// RUN: ebpf-gpu-cc %t.btf.o --emit=maps | FileCheck %s --check-prefix=MAPS
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 30 --seed 8
// RUN: %if kernel-bpf %{ ebpf-gpu-loader run %t.o --pcap %t.pcap --backend kernel | FileCheck %s --check-prefix=OWN %}
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader --pcap %t.pcap \
// RUN:   --work %t.d %t.o:count_len | FileCheck %s --check-prefix=KERNEL %}
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader --pcap %t.pcap \
// RUN:   --work %t.d2 %t.o,%t.btf.o:count_len | FileCheck %s --check-prefix=KERNEL %}
// COUNT: 2 legacy map definitions converted
// BTF: struct { __uint(type, BPF_MAP_TYPE_HASH); __uint(key_size, sizeof(__u32)); __uint(value_size, sizeof(__u64)); __uint(max_entries, 64); } by_len SEC(".maps");
// BTF: struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(key_size, sizeof(__u32)); __uint(value_size, sizeof(__u64)); __uint(max_entries, 2); __uint(map_flags, 0); } total SEC(".maps");
// MAPS: by_len{{.*}}hash
// MAPS: total{{.*}}percpu_array
// OWN: on the kernel back end, 30 packets
// KERNEL: count_len: 30 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

// What libbpf 0.x declared.
struct bpf_map_def {
  unsigned int type;
  unsigned int key_size;
  unsigned int value_size;
  unsigned int max_entries;
  unsigned int map_flags;
};

struct bpf_map_def SEC("maps") by_len = {
    .type = BPF_MAP_TYPE_HASH,
    .key_size = sizeof(__u32),
    .value_size = sizeof(__u64),
    .max_entries = 64,
};

struct bpf_map_def SEC("maps") total = {
    .type = BPF_MAP_TYPE_PERCPU_ARRAY,
    .key_size = sizeof(__u32),
    .value_size = sizeof(__u64),
    .max_entries = 2,
    .map_flags = 0,
};

SEC("xdp") int count_len(struct xdp_md *ctx) {
  __u32 len = ctx->data_end - ctx->data, k = 0;
  __u64 one = 1, *v = bpf_map_lookup_elem(&by_len, &len);
  if (v)
    *v += 1;
  else
    bpf_map_update_elem(&by_len, &len, &one, BPF_ANY);
  v = bpf_map_lookup_elem(&total, &k);
  if (v)
    *v += len;
  return len > 100 ? XDP_DROP : XDP_PASS;
}

char _license[] SEC("license") = "GPL";
