// SPDX-License-Identifier: Apache-2.0
// XDP dynptrs at run time (issue 17): bpf_dynptr_from_xdp, bpf_dynptr_slice
// and _slice_rdwr (the runtime functions of XdpHelpers.inc, called by the
// lifter on the dynptr's 16 bytes), bpf_dynptr_read and _write, as the
// kernel's. Program `tunnel` reads the Ethernet and IPv4 headers through
// slices (the buffers given, never used: the runtime's packets are
// linear), the ports with bpf_dynptr_read at the header's variable length,
// rewrites TCP packets through a writable slice and bpf_dynptr_write, and
// wraps odd-port UDP packets in an outer IPv4 header (IPIP) after
// bpf_xdp_adjust_head, through a second dynptr made over the moved packet
// (the shape of the kernel selftest test_xdp_dynptr.c's _xdp_tx_iptunnel).
// Program `dynptr_edges` records each corner case's result: a dynptr made with
// flags (-EINVAL as an int, null: its slices null, the helpers -EINVAL),
// a read past its size (-E2BIG), flags to the helpers (-EINVAL), slices
// past and at the end, bpf_dynptr_size, _is_null, _is_rdonly, _adjust (its
// -EINVAL and -ERANGE, a slice of the adjusted dynptr), and a dynptr kept
// over bpf_xdp_adjust_head, whose size is the packet's when it was made
// while the packet is now shorter.
// Host and kernel agree on every packet's verdict, bytes and the maps; the
// verifier's refusals: tests/lit/verifier/dynptr.c.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 3000 --seed 5
// RUN: ebpf-gpu-loader run %t.o --section dynptr_tunnel --pcap %t.pcap --backend host --dump-maps %t.maps | FileCheck %s
// CHECK-DAG: XDP_DROP
// CHECK-DAG: XDP_PASS
// CHECK-DAG: XDP_TX
// RUN: ebpf-gpu-loader run %t.o --section dynptr_edges --pcap %t.pcap --backend host --dump-maps %t.edges.maps
// RUN: FileCheck %s --check-prefix=EDGES < %t.edges.maps
// EDGES: res[0] = 4294967274
// EDGES-NEXT: res[1] = 1
// EDGES-NEXT: res[2] = 18446744073709551594
// EDGES-NEXT: res[3] = 18446744073709551594
// EDGES-NEXT: res[4] = 18446744073709551609
// EDGES-NEXT: res[5] = 18446744073709551594
// EDGES-NEXT: res[6] = 18446744073709551594
// EDGES-NEXT: res[7] = 1
// EDGES-NEXT: res[8] = 1
// EDGES-NEXT: res[9] = 18446744073709551594
// EDGES-NEXT: res[10] = 1
// EDGES-NEXT: res[11] = 4294967274
// EDGES-NEXT: res[12] = 1
// (the dump leaves out zeros: res[13], res[14] and res[18] are 0)
// EDGES-NEXT: res[15] = 1
// EDGES-NEXT: res[16] = 4294967274
// EDGES-NEXT: res[17] = 4294967262
// EDGES-NEXT: res[19] = 1
// EDGES-NEXT: res[20] = 1
// RUN: ebpf-gpu-cc %t.o --section dynptr_tunnel --emit=ptx --target=sm_90 -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// PTX: .visible .entry ebpfgpu_xdp_batch(
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: ebpf-gpu-cc %t.o --section dynptr_tunnel -o %t.gpu.o
// RUN: ebpf-gpu-cc %t.o --section dynptr_edges --emit=ptx --target=sm_90 -o %t.edges.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.edges.ptx -o %t.edges.cubin %}
// dynptr_tunnel writes through bpf_dynptr_slice_rdwr, which some kernels
// keep from XDP programs (seen on 6.18.44-fc-v1272): there the kernel
// refuses it for that alone, and compare exits 1 saying so.
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --pcap %t.pcap > %t.compare.txt || true %}
// RUN: %if kernel-bpf %{ FileCheck %s --check-prefix=KERNEL < %t.compare.txt %}
// KERNEL-DAG: dynptr_tunnel: {{both: 3000 packets, host and kernel agree|ours: bpf_dynptr_slice_rdwr\(\) is not allowed}}
// KERNEL-DAG: dynptr_edges: both: 3000 packets, host and kernel agree
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

// The kernel's kfuncs, declared as its selftests' bpf_kfuncs.h does.
extern int bpf_dynptr_from_xdp(struct xdp_md *xdp, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
                              __u32 buffer__szk) __ksym;
extern void *bpf_dynptr_slice_rdwr(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
                                   __u32 buffer__szk) __ksym;
extern __u32 bpf_dynptr_size(const struct bpf_dynptr *p) __ksym;
extern _Bool bpf_dynptr_is_null(const struct bpf_dynptr *p) __ksym;
extern _Bool bpf_dynptr_is_rdonly(const struct bpf_dynptr *p) __ksym;
extern int bpf_dynptr_adjust(const struct bpf_dynptr *p, __u32 start, __u32 end) __ksym;

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, __u64);
} counts SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 21);
  __type(key, __u32);
  __type(value, __u64);
} res SEC(".maps");

static __always_inline void bump(__u32 k) {
  __u64 *v = bpf_map_lookup_elem(&counts, &k);
  if (v)
    *v += 1;
}

static __always_inline void put(__u32 k, __u64 v) {
  __u64 *p = bpf_map_lookup_elem(&res, &k);
  if (p)
    *p = v;
}

SEC("xdp") int dynptr_tunnel(struct xdp_md *ctx) {
  __u8 ebuf[sizeof(struct ethhdr)] = {};
  __u8 ibuf[sizeof(struct iphdr)] = {};
  struct bpf_dynptr ptr;
  __u16 ports[2];

  bpf_dynptr_from_xdp(ctx, 0, &ptr);
  struct ethhdr *eth = bpf_dynptr_slice(&ptr, 0, ebuf, sizeof(ebuf));
  if (!eth)
    return XDP_DROP;
  if (eth->h_proto != bpf_htons(ETH_P_IP)) {
    bump(0);
    return XDP_PASS;
  }
  struct iphdr *iph = bpf_dynptr_slice(&ptr, sizeof(*eth), ibuf, sizeof(ibuf));
  if (!iph)
    return XDP_DROP;
  __u32 l4 = sizeof(*eth) + iph->ihl * 4;
  if (bpf_dynptr_read(ports, sizeof(ports), &ptr, l4, 0))
    return XDP_DROP;
  __u8 proto = iph->protocol;
  __u32 saddr = iph->saddr, daddr = iph->daddr;
  __u16 tot_len = bpf_ntohs(iph->tot_len);

  if (proto == IPPROTO_TCP) {
    bump(1);
    struct iphdr *w = bpf_dynptr_slice_rdwr(&ptr, sizeof(struct ethhdr), NULL, sizeof(*w));
    if (!w)
      return XDP_DROP;
    __u32 sum = (__u32)w->check + bpf_htons(0x0100);
    w->ttl--;
    w->check = (__u16)(sum + (sum >> 16));
    __u16 swapped[2] = {ports[1], ports[0]};
    if (bpf_dynptr_write(&ptr, l4, swapped, sizeof(swapped), 0))
      return XDP_ABORTED;
    return XDP_TX;
  }
  if (proto != IPPROTO_UDP || !(bpf_ntohs(ports[1]) & 1)) {
    bump(3);
    return XDP_DROP;
  }
  bump(2);
  // Room for the outer header; the first dynptr's slices are stale now.
  if (bpf_xdp_adjust_head(ctx, -(int)sizeof(struct iphdr)))
    return XDP_DROP;
  struct bpf_dynptr moved;
  __u8 nbuf[sizeof(struct ethhdr) + sizeof(struct iphdr)];
  bpf_dynptr_from_xdp(ctx, 0, &moved);
  struct ethhdr *ne = bpf_dynptr_slice_rdwr(&moved, 0, nbuf, sizeof(nbuf));
  if (!ne)
    return XDP_DROP;
  // Copied into the buffer only for bytes split over fragments: never
  // here, nor in the kernel for these linear packets.
  if ((void *)ne == (void *)nbuf)
    return XDP_ABORTED;
  __u8 old[sizeof(struct ethhdr)];
  if (bpf_dynptr_read(old, sizeof(old), &moved, sizeof(struct iphdr), 0))
    return XDP_ABORTED;
  for (int i = 0; i < ETH_ALEN; i++) {
    ne->h_dest[i] = old[ETH_ALEN + i];
    ne->h_source[i] = old[i];
  }
  ne->h_proto = bpf_htons(ETH_P_IP);
  struct iphdr *oh = (struct iphdr *)(ne + 1);
  oh->version = 4;
  oh->ihl = sizeof(*oh) >> 2;
  oh->tos = 0;
  oh->tot_len = bpf_htons(tot_len + sizeof(*oh));
  oh->id = 0;
  oh->frag_off = 0;
  oh->ttl = 8;
  oh->protocol = IPPROTO_IPIP;
  oh->check = 0;
  oh->saddr = daddr;
  oh->daddr = saddr ^ bpf_htonl(0x0a000000);
  __u32 csum = 0;
  __u16 *words = (__u16 *)oh;
  for (int i = 0; i < (int)sizeof(*oh) / 2; i++)
    csum += words[i];
  oh->check = ~((csum & 0xffff) + (csum >> 16));
  return XDP_TX;
}

SEC("xdp") int dynptr_edges(struct xdp_md *ctx) {
  struct bpf_dynptr bad, ptr;
  __u8 b[4] = {};
  __u32 len = ctx->data_end - ctx->data;

  int r = bpf_dynptr_from_xdp(ctx, 1, &bad);
  put(0, (__u32)r);
  put(1, bpf_dynptr_slice(&bad, 0, NULL, 1) == NULL);
  put(2, bpf_dynptr_read(b, sizeof(b), &bad, 0, 0));
  put(3, bpf_dynptr_write(&bad, 0, b, sizeof(b), 0));
  bpf_dynptr_from_xdp(ctx, 0, &ptr);
  put(4, bpf_dynptr_read(b, sizeof(b), &ptr, len - 2, 0));
  put(5, bpf_dynptr_read(b, sizeof(b), &ptr, 0, 1));
  put(6, bpf_dynptr_write(&ptr, 0, b, sizeof(b), 1));
  put(7, bpf_dynptr_slice(&ptr, len - 2, NULL, 4) == NULL);
  put(8, bpf_dynptr_slice(&ptr, len - 4, NULL, 4) != NULL);
  put(11, bpf_dynptr_size(&bad));
  put(12, bpf_dynptr_is_null(&bad));
  put(13, bpf_dynptr_is_null(&ptr));
  put(14, bpf_dynptr_is_rdonly(&ptr));
  put(15, bpf_dynptr_size(&ptr) == len);
  struct bpf_dynptr adj;
  bpf_dynptr_from_xdp(ctx, 0, &adj);
  put(16, (__u32)bpf_dynptr_adjust(&adj, 5, 3));
  put(17, (__u32)bpf_dynptr_adjust(&adj, 0, len + 1));
  put(18, (__u32)bpf_dynptr_adjust(&adj, sizeof(struct ethhdr), len));
  put(19, bpf_dynptr_size(&adj) == len - sizeof(struct ethhdr));
  // The adjusted dynptr's offset 0 is the packet's 14.
  __u8 *first = bpf_dynptr_slice(&adj, 0, NULL, 1);
  if (bpf_dynptr_read(b, 1, &ptr, sizeof(struct ethhdr), 0))
    return XDP_ABORTED;
  put(20, first && *first == b[0]);
  // The dynptr keeps the size it was made with; the packet is 4 bytes
  // shorter: within the dynptr, past the packet.
  if (bpf_xdp_adjust_head(ctx, 4))
    return XDP_ABORTED;
  put(9, bpf_dynptr_read(b, sizeof(b), &ptr, len - 6, 0));
  put(10, bpf_dynptr_slice(&ptr, len - 6, NULL, 4) == NULL);
  return XDP_PASS;
}
