// bpf_redirect_map with BPF_F_BROADCAST (and BPF_F_EXCLUDE_INGRESS) on a
// devmap_hash and a devmap, shaped like the kernel selftests'
// xdp_redirect_map_multi_prog and xdp_redirect_map_all_prog
// (tools/testing/selftests/bpf/progs/xdp_redirect_multi_kern.c): the answer
// is XDP_REDIRECT, as the kernel's, whatever the map holds; `run` lists the
// ports each broadcast goes to (resolved as the helper runs: the map's
// devices, less the ingress one with BPF_F_EXCLUDE_INGRESS). Flags other
// than the action, BPF_F_BROADCAST and BPF_F_EXCLUDE_INGRESS abort, and
// BPF_F_EXCLUDE_INGRESS alone is a plain redirect. The forward path:
// tests/lit/runtime/broadcast.test; the GPU: tests/gpu-device/maps/broadcast.test.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 400 --seed 7
// Packets arrive on ifindex 1 (run's default); the maps (Inputs/broadcast-*.maps)
// name ifindexes 1, 2 and 3, the devmap also 40 (past the 30 ports a broadcast reaches).
// RUN: ebpf-gpu-loader run %t.o --section multi --pcap %t.pcap --map-file %S/Inputs/broadcast-map_all.maps \
// RUN:   | FileCheck %s --check-prefix=MULTI
// MULTI: XDP_REDIRECT [[#%d,N:]]
// MULTI: redirect to ifindex 1: [[#%d,IPV6:]]
// MULTI-NEXT: redirect to broadcast to 2,3: [[#%d,IPV4:]]
// MULTI-NEXT: redirect to broadcast to 1,2,3: [[#N-IPV6-IPV4]]
// RUN: ebpf-gpu-loader run %t.o --section all --pcap %t.pcap --map-file %S/Inputs/broadcast-map_egress.maps \
// RUN:   | FileCheck %s --check-prefix=ALL
// ALL: XDP_REDIRECT 400
// ALL: redirect to broadcast to 2: 400
// RUN: ebpf-gpu-loader run %t.o --section ports_all --pcap %t.pcap --map-file %S/Inputs/broadcast-ports.maps \
// RUN:   --ingress-ifindex 2 | FileCheck %s --check-prefix=PORTS
// PORTS: XDP_REDIRECT 400
// PORTS: redirect to broadcast to 1,2,3,+far: 400
// RUN: ebpf-gpu-loader run %t.o --section ports_excl --pcap %t.pcap --map-file %S/Inputs/broadcast-ports.maps \
// RUN:   --ingress-ifindex 2 | FileCheck %s --check-prefix=EXCL
// EXCL: XDP_REDIRECT 400
// EXCL: redirect to broadcast to 1,3,+far: 400
// Every device excluded: still XDP_REDIRECT (the kernel frees the frame).
// RUN: ebpf-gpu-loader run %t.o --section all --pcap %t.pcap --map-set map_egress:02000000:0200000000000000 \
// RUN:   --ingress-ifindex 2 | FileCheck %s --check-prefix=NONE
// NONE: XDP_REDIRECT 400
// NONE: redirect to broadcast to none: 400
// RUN: ebpf-gpu-loader run %t.o --section bad_flags --pcap %t.pcap | FileCheck %s --check-prefix=BAD
// BAD: XDP_ABORTED 400
// RUN: ebpf-gpu-loader run %t.o --section exclude_only --pcap %t.pcap --map-file %S/Inputs/broadcast-ports.maps \
// RUN:   | FileCheck %s --check-prefix=ONLY
// ONLY: XDP_REDIRECT 400
// ONLY: redirect to ifindex 2: 400
// RUN: ebpf-gpu-loader run %t.o --section multi --pcap %t.pcap --map-file %S/Inputs/broadcast-map_all.maps --json \
// RUN:   | FileCheck %s --check-prefix=JSON
// JSON: "redirects": {"ifindex 1": {{[0-9]+}}, "broadcast to 2,3": {{[0-9]+}}, "broadcast to 1,2,3": {{[0-9]+}}}
//
// The kernel: every program agrees with the host on empty maps, and on
// maps naming lo only (ifindex 1 on every machine, the runs' ingress
// device: the kernel refuses a devmap entry naming no device), packet for
// packet.
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --pcap %t.pcap | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: multi: both: 400 packets, host and kernel agree
// KERNEL-NEXT: all: both: 400 packets, host and kernel agree
// KERNEL-NEXT: ports_all: both: 400 packets, host and kernel agree
// KERNEL-NEXT: ports_excl: both: 400 packets, host and kernel agree
// KERNEL-NEXT: bad_flags: both: 400 packets, host and kernel agree
// KERNEL-NEXT: exclude_only: both: 400 packets, host and kernel agree
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader --pcap %t.pcap \
// RUN:   --work %t.d --loader-arg=--map-set --loader-arg=map_all:01000000:01000000 %t.o:multi \
// RUN:   | FileCheck %s --check-prefix=DIFF %}
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader --pcap %t.pcap \
// RUN:   --work %t.d --loader-arg=--map-set --loader-arg=map_egress:01000000:0100000000000000 %t.o:all \
// RUN:   | FileCheck %s --check-prefix=DIFF %}
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader --pcap %t.pcap \
// RUN:   --work %t.d --loader-arg=--map-set --loader-arg=ports:00000000:01000000 \
// RUN:   --loader-arg=--map-set --loader-arg=ports:01000000:01000000 %t.o:ports_excl %t.o:exclude_only \
// RUN:   | FileCheck %s --check-prefix=DIFF %}
// DIFF: {{(multi|all|ports_excl)}}: 400 packets, host and kernel agree
#include <linux/bpf.h>
#include <linux/if_ether.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
  __uint(key_size, sizeof(int));
  __uint(value_size, sizeof(int));
  __uint(max_entries, 128);
} map_all SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
  __uint(key_size, sizeof(int));
  __uint(value_size, sizeof(struct bpf_devmap_val));
  __uint(max_entries, 128);
} map_egress SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_DEVMAP);
  __type(key, __u32);
  __type(value, __u32);
  __uint(max_entries, 8);
} ports SEC(".maps");

// As the selftest: IPv4 to every device but the ingress one, IPv6 to the
// device keyed by the ingress ifindex, the rest to every device.
SEC("xdp") int multi(struct xdp_md *ctx) {
  void *data_end = (void *)(long)ctx->data_end;
  void *data = (void *)(long)ctx->data;
  int if_index = ctx->ingress_ifindex;
  struct ethhdr *eth = data;
  if (data + sizeof(*eth) > data_end)
    return XDP_DROP;
  if (eth->h_proto == bpf_htons(ETH_P_IP))
    return bpf_redirect_map(&map_all, 0, BPF_F_BROADCAST | BPF_F_EXCLUDE_INGRESS);
  if (eth->h_proto == bpf_htons(ETH_P_IPV6))
    return bpf_redirect_map(&map_all, if_index, 0);
  return bpf_redirect_map(&map_all, 0, BPF_F_BROADCAST);
}

SEC("xdp") int all(struct xdp_md *ctx) {
  return bpf_redirect_map(&map_egress, 0, BPF_F_BROADCAST | BPF_F_EXCLUDE_INGRESS);
}

SEC("xdp") int ports_all(struct xdp_md *ctx) {
  return bpf_redirect_map(&ports, 0, BPF_F_BROADCAST);
}

SEC("xdp") int ports_excl(struct xdp_md *ctx) {
  return bpf_redirect_map(&ports, 0, BPF_F_BROADCAST | BPF_F_EXCLUDE_INGRESS);
}

// A flag the kernel does not know for devmaps (1 << 5).
SEC("xdp") int bad_flags(struct xdp_md *ctx) {
  return bpf_redirect_map(&ports, 0, BPF_F_BROADCAST | (1 << 5));
}

// BPF_F_EXCLUDE_INGRESS without BPF_F_BROADCAST: a plain lookup of slot 1.
SEC("xdp") int exclude_only(struct xdp_md *ctx) {
  return bpf_redirect_map(&ports, 1, BPF_F_EXCLUDE_INGRESS | XDP_PASS);
}

char LICENSE[] SEC("license") = "GPL";
