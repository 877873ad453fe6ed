// bpf_redirect_map into an xskmap (BPF_MAP_TYPE_XSKMAP, u32 keys and
// values): an entry is an AF_XDP-style consumer's id (the kernel's socket;
// 0: none), and the answer is XDP_REDIRECT with that consumer as the target
// (`run` lists it: "redirect to xsk N"); a missing entry gives the flags'
// action, and any flag beyond it XDP_ABORTED (BPF_F_BROADCAST is a
// devmap's), as the kernel's. bpf_map_lookup_elem answers null for an
// empty entry, as the kernel's (the AF_XDP loaders' check before they
// redirect). The runtime delivers to the consumer's port
// (tests/lit/runtime/xskmap.test; docs/MAPS.md, "xskmap").
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 400 --seed 7
// Queue 0 holds consumer 1, queue 2 consumer 2, queue 1 none (Inputs/xskmap.maps).
// RUN: ebpf-gpu-loader run %t.o --section xsk_proto --pcap %t.pcap --map-file %S/Inputs/xskmap.maps \
// RUN:   | FileCheck %s --check-prefix=PROTO
// PROTO: XDP_DROP [[#%d,IPV6:]]
// PROTO: XDP_REDIRECT [[#%d,N:]]
// PROTO: redirect to xsk 1: [[#%d,IPV4:]]
// PROTO-NEXT: redirect to xsk 2: [[#N-IPV4]]
// RUN: ebpf-gpu-loader run %t.o --section xsk_proto --pcap %t.pcap | FileCheck %s --check-prefix=EMPTY
// EMPTY: XDP_DROP 400
// RUN: ebpf-gpu-loader run %t.o --section to_xsk --pcap %t.pcap --map-file %S/Inputs/xskmap.maps \
// RUN:   | FileCheck %s --check-prefix=QUEUE
// QUEUE: XDP_REDIRECT 400
// QUEUE: redirect to xsk 1: 400
// RUN: ebpf-gpu-loader run %t.o --section xsk_lookup --pcap %t.pcap --map-file %S/Inputs/xskmap.maps \
// RUN:   | FileCheck %s --check-prefix=QUEUE
// RUN: ebpf-gpu-loader run %t.o --section xsk_lookup --pcap %t.pcap | FileCheck %s --check-prefix=LOOKUP0
// LOOKUP0: XDP_PASS 400
// RUN: ebpf-gpu-loader run %t.o --section xsk_far --pcap %t.pcap --map-file %S/Inputs/xskmap.maps \
// RUN:   | FileCheck %s --check-prefix=FAR
// FAR: XDP_PASS 400
// RUN: ebpf-gpu-loader run %t.o --section bad_flags --pcap %t.pcap --map-file %S/Inputs/xskmap.maps \
// RUN:   | FileCheck %s --check-prefix=BAD
// BAD: XDP_ABORTED 400
// A consumer id is 4 bytes; the kernel's shape rules at creation.
// RUN: not ebpf-gpu-loader run %t.o --section to_xsk --pcap %t.pcap --map-set xsks:00000000:0100 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SHORT
// SHORT: error: {{.*}}xsks
//
// The kernel: the same verdicts and bytes on an empty xskmap (it fills one
// only with AF_XDP sockets bound to a real device's queue).
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --pcap %t.pcap | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: xsk_proto: both: 400 packets, host and kernel agree
// KERNEL-NEXT: to_xsk: both: 400 packets, host and kernel agree
// KERNEL-NEXT: xsk_lookup: both: 400 packets, host and kernel agree
// KERNEL-NEXT: xsk_far: both: 400 packets, host and kernel agree
// KERNEL-NEXT: bad_flags: both: 400 packets, host and kernel agree
#include <linux/bpf.h>
#include <linux/if_ether.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_XSKMAP);
  __type(key, __u32);
  __type(value, __u32);
  __uint(max_entries, 4);
} xsks SEC(".maps");

// IPv4 to queue 0's consumer, IPv6 to queue 1's, the rest to queue 2's;
// XDP_DROP where the queue has none.
SEC("xdp") int xsk_proto(struct xdp_md *ctx) {
  void *data_end = (void *)(long)ctx->data_end;
  void *data = (void *)(long)ctx->data;
  struct ethhdr *eth = data;
  if (data + sizeof(*eth) > data_end)
    return XDP_DROP;
  __u32 q = eth->h_proto == bpf_htons(ETH_P_IP) ? 0 : eth->h_proto == bpf_htons(ETH_P_IPV6) ? 1 : 2;
  return bpf_redirect_map(&xsks, q, XDP_DROP);
}

// What libxdp's and the kernel samples' AF_XDP programs do: the packet's
// own queue's consumer, XDP_PASS without one.
SEC("xdp") int to_xsk(struct xdp_md *ctx) {
  return bpf_redirect_map(&xsks, ctx->rx_queue_index, XDP_PASS);
}

// The older form (libbpf's xsk default program): look up, then redirect.
SEC("xdp") int xsk_lookup(struct xdp_md *ctx) {
  __u32 q = ctx->rx_queue_index;
  if (bpf_map_lookup_elem(&xsks, &q))
    return bpf_redirect_map(&xsks, q, 0);
  return XDP_PASS;
}

// Past max_entries: no entry.
SEC("xdp") int xsk_far(struct xdp_md *ctx) { return bpf_redirect_map(&xsks, 9, XDP_PASS); }

// Broadcast is a devmap's flag only.
SEC("xdp") int bad_flags(struct xdp_md *ctx) {
  return bpf_redirect_map(&xsks, 0, BPF_F_BROADCAST | XDP_PASS);
}

char LICENSE[] SEC("license") = "GPL";
