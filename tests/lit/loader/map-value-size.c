// SPDX-License-Identifier: GPL-2.0
// Key and value sizes set before load (libbpf's bpf_map__set_key_size and
// set_value_size; the C API's ebpf_gpu_map__set_*): `run --map-value-size`
// and `--map-key-size` MAP=BYTES, as ebpf-gpu-cc takes them, on every back
// end that loads an eBPF object (and the daemon's `prog load`:
// tests/lit/daemon/load-options.test). The verifier checks the program
// against the new sizes: `grow` counts in 8 slots of a .bss that declares
// 2, `wide` writes 16 bytes into a hash map's 8-byte values; each is
// refused until its map has room. The kernel takes the hash map's new size
// through libbpf, and host = kernel; global data it resizes only with
// libbpf 1.3 or later (this machine's is older: refused, naming it).
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 64 --seed 4
// RUN: not ebpf-gpu-loader run %t.o --section grow --pcap %t.pcap 2>&1 | FileCheck %s --check-prefix=SMALL
// SMALL: map value read of 8 bytes at offset 8..64 is outside the 24-byte value of map '.bss'
// RUN: ebpf-gpu-loader run %t.o --section grow --pcap %t.pcap --map-value-size .bss=72 \
// RUN:   --dump-maps %t.grow.maps | FileCheck %s --check-prefix=GROWN
// GROWN: XDP_PASS{{ +}}64
// RUN: FileCheck %s --check-prefix=GROWN-MAPS < %t.grow.maps
// GROWN-MAPS: .bss[0] = 4000000000000000{{([0-9a-f]{16}){8}$}}
// RUN: not ebpf-gpu-loader run %t.o --section wide --pcap %t.pcap 2>&1 | FileCheck %s --check-prefix=NARROW
// NARROW: map value read of 8 bytes at offset 8 is outside the 8-byte value of map 'table'
// RUN: ebpf-gpu-loader run %t.o --section wide --pcap %t.pcap --map-value-size table=16 \
// RUN:   --map-key-size table=4 --dump-maps %t.wide.maps | FileCheck %s --check-prefix=WIDE
// WIDE: XDP_PASS{{ +}}64
// RUN: FileCheck %s --check-prefix=WIDE-MAPS < %t.wide.maps
// WIDE-MAPS: table{{.[0-9a-f]+.}} = {{([0-9a-f]{32})$}}
// Bad input: one message each, and nothing run.
// RUN: not ebpf-gpu-loader run %t.o --section wide --pcap %t.pcap --map-value-size table 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD
// BAD: error: --map-value-size 'table': expected MAP=BYTES (1 to 2147483647)
// RUN: not ebpf-gpu-loader run %t.o --section wide --pcap %t.pcap --map-value-size nope=16 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOPE
// NOPE: value size of 'nope': the object has no map named 'nope'
// RUN: ebpf-gpu-cc %t.o --section wide --map-value-size table=16 -o %t.gpu.o
// RUN: not ebpf-gpu-loader run %t.gpu.o --pcap %t.pcap --map-value-size table=16 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GPUO
// GPUO: --inner-map, --map-size, --map-key-size and --map-value-size apply to eBPF objects; a .gpu.o has its maps from ebpf-gpu-cc
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader --pcap %t.pcap \
// RUN:   --work %t.d --loader-arg=--map-value-size --loader-arg=table=16 %t.o:wide | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: wide: 64 packets, host and kernel agree
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --section wide --pcap %t.pcap \
// RUN:   --map-value-size table=16 | FileCheck %s --check-prefix=COMPARE %}
// COMPARE: wide: both: 64 packets, host and kernel agree
// RUN: %if kernel-bpf %{ not ebpf-gpu-loader run %t.o --section grow --pcap %t.pcap --backend kernel \
// RUN:   --map-value-size .bss=72 2>&1 | FileCheck %s --check-prefix=KGLOBAL %}
// KGLOBAL: --map-value-size .bss=72: the kernel back end's libbpf ({{[0-9.]+}}) cannot resize global data (libbpf 1.3 can)

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

__u64 hits;
__u64 slots[2];

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 16);
  __type(key, __u32);
  __type(value, __u64);
} table SEC(".maps");

SEC("xdp") int grow(struct xdp_md *ctx) {
  __u8 *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  if (data + 20 > end)
    return XDP_ABORTED;
  __u32 i = data[19] & 7; // the low byte of an IPv4 id
  hits++;
  slots[i] += 1;
  return XDP_PASS;
}

SEC("xdp") int wide(struct xdp_md *ctx) {
  __u32 k = (ctx->data_end - ctx->data) & 15;
  __u64 v[2] = {0, 0};
  bpf_map_update_elem(&table, &k, v, BPF_NOEXIST);
  __u64 *p = bpf_map_lookup_elem(&table, &k);
  if (!p)
    return XDP_ABORTED;
  p[0] += 1;
  p[1] += ctx->data_end - ctx->data;
  return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
