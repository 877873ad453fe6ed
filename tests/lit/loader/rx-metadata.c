// SPDX-License-Identifier: Apache-2.0
// The XDP RX metadata kfuncs at run time (issue 17):
// bpf_xdp_metadata_rx_timestamp, _rx_hash and _rx_vlan_tag. `run` over a
// pcap has no port, so they are the kernel's generic implementations
// (net/core/xdp.c): -EOPNOTSUPP, nothing written. From a port (`forward`,
// the daemon) the runtime gives each packet what the mbuf carries, and
// -ENODATA for what it lacks: tests/lit/runtime/rx-metadata.test.
// Program `rx_meta` counts each kfunc's results in `results` (kfunc * 4 +
// 0 for 0, 1 for -ENODATA, 2 for -EOPNOTSUPP, 3 for another) and keeps
// what they wrote for each packet in `seen` (the timestamp, the hash, its
// type, the VLAN protocol and TCI, packet by packet: slot 5 * n + field),
// the outputs starting as 0x5a5a... so that an untouched one shows. It
// writes the VLAN tag into the packet's metadata (bpf_xdp_adjust_meta),
// as the kernel selftest xdp_metadata.c does, and passes every packet.
// The kernel cannot run it: it offers these kfuncs only to a program bound
// to a device, and BPF_PROG_TEST_RUN runs none (tests/lit/verifier/
// rx-metadata.c checks both against this kernel); `compare` says so.
// RUN: %clang-bpf -mcpu=v3 -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 50 --seed 3
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host --dump-maps %t.maps | FileCheck %s
// CHECK: XDP_PASS 50 {{[0-9]+}}
// RUN: FileCheck %s --check-prefix=GENERIC < %t.maps
// GENERIC: results[2] = 50
// GENERIC-NEXT: results[6] = 50
// GENERIC-NEXT: results[10] = 50
// GENERIC: seen[0] = 6510615555426900570
// GENERIC-NEXT: seen[1] = 1515870810
// GENERIC-NEXT: seen[2] = 1515870810
// GENERIC-NEXT: seen[3] = 23130
// GENERIC-NEXT: seen[4] = 23130
// RUN: ebpf-gpu-cc %t.o --emit=ptx --target=sm_90 -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// PTX: .visible .entry ebpfgpu_xdp_batch(
// The descriptor's flags (offset 28): EBPFGPU_DESC_RX_META.
// PTX: ld.global.u8 {{.*}}+28];
// PTX-NEXT: and.b16 {{.*}}, 2;
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: ebpf-gpu-cc %t.o -o %t.gpu.o
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --pcap %t.pcap | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: rx_meta: device-bound: the kernel cannot test-run it: it calls the XDP RX metadata kfuncs (bpf_xdp_metadata_rx_*), which the kernel offers only to a program bound to a device, and BPF_PROG_TEST_RUN runs no such program
// RUN: %if kernel-bpf %{ not ebpf-gpu-loader run %t.o --pcap %t.pcap --backend kernel 2>&1 | FileCheck %s --check-prefix=KBACKEND %}
// KBACKEND: kernel back end: the kernel cannot test-run it: it calls the XDP RX metadata kfuncs
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

enum xdp_rss_hash_type { XDP_RSS_TYPE_NONE = 0 };
extern int bpf_xdp_metadata_rx_timestamp(const struct xdp_md *ctx, __u64 *timestamp) __ksym;
extern int bpf_xdp_metadata_rx_hash(const struct xdp_md *ctx, __u32 *hash,
                                    enum xdp_rss_hash_type *rss_type) __ksym;
extern int bpf_xdp_metadata_rx_vlan_tag(const struct xdp_md *ctx, __be16 *vlan_proto,
                                        __u16 *vlan_tci) __ksym;

#define PACKETS 200

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 12);
  __type(key, __u32);
  __type(value, __u64);
} results SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 5 * PACKETS);
  __type(key, __u32);
  __type(value, __u64);
} seen SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u32);
} packets SEC(".maps");

static void count(__u32 kfunc, int r) {
  __u32 k = kfunc * 4 + (r == 0 ? 0 : r == -61 ? 1 : r == -95 ? 2 : 3);
  __u64 *v = bpf_map_lookup_elem(&results, &k);
  if (v)
    __sync_fetch_and_add(v, 1);
}

static void keep(__u32 slot, __u64 value) {
  __u64 *v = bpf_map_lookup_elem(&seen, &slot);
  if (v)
    *v = value;
}

SEC("xdp") int rx_meta(struct xdp_md *ctx) {
  __u64 ts = 0x5a5a5a5a5a5a5a5aull;
  __u32 hash = 0x5a5a5a5a;
  enum xdp_rss_hash_type type = (enum xdp_rss_hash_type)0x5a5a5a5a;
  count(0, bpf_xdp_metadata_rx_timestamp(ctx, &ts));
  count(1, bpf_xdp_metadata_rx_hash(ctx, &hash, &type));
  if (bpf_xdp_adjust_meta(ctx, -4))
    return XDP_ABORTED;
  void *meta = (void *)(long)ctx->data_meta, *data = (void *)(long)ctx->data;
  if (meta + 4 > data)
    return XDP_ABORTED;
  *(__u32 *)meta = 0x5a5a5a5a;
  count(2, bpf_xdp_metadata_rx_vlan_tag(ctx, (__be16 *)meta, (__u16 *)(meta + 2)));
  __u16 proto = *(__u16 *)meta, tci = *(__u16 *)(meta + 2);
  __u32 zero = 0;
  __u32 *n = bpf_map_lookup_elem(&packets, &zero);
  if (!n)
    return XDP_ABORTED;
  __u32 i = __sync_fetch_and_add(n, 1);
  if (i < PACKETS) {
    keep(5 * i, ts);
    keep(5 * i + 1, hash);
    keep(5 * i + 2, type);
    keep(5 * i + 3, proto);
    keep(5 * i + 4, tci);
  }
  return XDP_PASS;
}
