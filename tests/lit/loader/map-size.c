// Maps the object leaves at max_entries 0 for user space to size before
// load (bpf_map__set_max_entries; the kernel's xdp_sample.bpf.c counters
// are sized by the CPU count): --map-size MAP=ENTRIES on ebpf-gpu-cc and on
// every back end of ebpf-gpu-loader run and compare, and on forward (one parser
// for the three). Without it, the run refuses the map, as the kernel refuses
// to create it; a .gpu.o takes its shapes from ebpf-gpu-cc.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 25 --seed 9
// RUN: not ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not ebpf-gpu-loader run %t.o --map-size per_len=0 --pcap %t.pcap 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not ebpf-gpu-loader run %t.o --map-size nope=4 --pcap %t.pcap --backend host 2>&1 | FileCheck %s --check-prefix=NOPE
// RUN: not ebpf-gpu-cc %t.o --map-size per_len -o %t.gpu.o 2>&1 | FileCheck %s --check-prefix=CCBAD
// RUN: ebpf-gpu-cc %t.o --map-size per_len=8 --emit=maps | FileCheck %s --check-prefix=MAPS
// RUN: ebpf-gpu-cc %t.o --map-size per_len=8 -o %t.gpu.o
// RUN: ebpf-gpu-loader run %t.o --map-size per_len=8 --pcap %t.pcap --backend host --dump-maps %t.maps
// RUN: FileCheck %s < %t.maps
// RUN: %if kernel-bpf %{ not ebpf-gpu-loader run %t.o --pcap %t.pcap --backend kernel 2>&1 | FileCheck %s --check-prefix=KZERO %}
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader --pcap %t.pcap \
// RUN:   --work %t.d --loader-arg=--map-size --loader-arg=per_len=8 %t.o:count_len | FileCheck %s --check-prefix=KERNEL %}
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --pcap %t.pcap --map-size per_len=8 | FileCheck %s --check-prefix=COMPARE %}
// RUN: not ebpf-gpu-loader compare %t.o --pcap %t.pcap --map-size per_len 2>&1 | FileCheck %s --check-prefix=COMPAREBAD
// RUN: not ebpf-gpu-loader forward %t.o --backend host --port net_pcap0,rx_pcap=%t.pcap 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not ebpf-gpu-loader forward %t.o --map-size per_len=0 --port net_pcap0,rx_pcap=%t.pcap 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: ebpf-gpu-loader forward %t.o --map-size per_len=8 --backend host --port net_pcap0,rx_pcap=%t.pcap,tx_pcap=%t.tx.pcap --idle-ms 300 --dump-maps > %t.fwd.maps
// RUN: FileCheck %s < %t.fwd.maps
// RUN: not ebpf-gpu-loader forward %t.gpu.o --map-size per_len=8 --port net_pcap0,rx_pcap=%t.pcap 2>&1 | FileCheck %s --check-prefix=GPUO
// GPUO: error: --inner-map, --map-size, --map-key-size and --map-value-size apply to eBPF objects; a .gpu.o has its maps from ebpf-gpu-cc
// COMPARE: count_len: both: 25 packets, host and kernel agree
// COMPAREBAD: error: --map-size 'per_len': expected MAP=ENTRIES (1 to 2147483647)
// ZERO: map 'per_len': key size, value size and max_entries must be above 0
// BAD: error: --map-size 'per_len=0': expected MAP=ENTRIES (1 to 2147483647)
// NOPE: --map-size nope=4: the object has no map named 'nope'
// CCBAD: --map-size 'per_len': expected MAP=ENTRIES
// MAPS: per_len: array key 4B value 8B max_entries 8
// CHECK: per_len[{{[0-7]}}] =
// KZERO: the kernel refused the program
// KERNEL: count_len: 25 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
} per_len SEC(".maps");

SEC("xdp") int count_len(struct xdp_md *ctx) {
  __u32 k = (ctx->data_end - ctx->data) & 7;
  __u64 *v = bpf_map_lookup_elem(&per_len, &k);
  if (v)
    __sync_fetch_and_add(v, 1);
  return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
