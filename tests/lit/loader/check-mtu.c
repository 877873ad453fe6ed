// bpf_check_mtu (helper 163), XDP's form: 0 when the packet, changed by
// len_diff (or an L3 length of *mtu_len where that is not 0, plus the
// 14-byte Ethernet header), fits the link's MTU plus 14, else
// BPF_MTU_CHK_RET_FRAG_NEEDED (1); *mtu_len gets the link's MTU. ifindex 0
// is the ingress link. Any flag, BPF_MTU_CHK_SEGS included, is -EINVAL
// (mtu_len untouched). The MTU comes from the forwarding table (--fib)
// where the run has one, a link it does not list being -ENODEV; without
// one every link has 1500 (docs/MAPS.md). Sums wrap at 32 bits, as the
// kernel's. Each case stores its return code + 100 (the dump leaves out
// zeros) and the mtu_len it left (7, or the L3 length, before the call).
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 30 --seed 2
// RUN: ebpf-gpu-cc %t.o --section mtu_cases -o %t.gpu.o
// RUN: ebpf-gpu-cc %t.o --section mtu_cases --emit=ptx --target=sm_90 -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: ebpf-gpu-loader run %t.o --section mtu_cases --pcap %t.pcap --backend host --dump-maps %t.nofib.maps | FileCheck %s --check-prefix=PASS
// RUN: FileCheck %s --check-prefix=NOFIB < %t.nofib.maps
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.gpu.o --pcap %t.pcap --dump-maps %t.gpu.maps | FileCheck %s --check-prefix=PASS %}
// RUN: %if cuda-gpu %{ FileCheck %s --check-prefix=NOFIB < %t.gpu.maps %}
// PASS: XDP_PASS 30
// NOFIB: mtu[0] = 1500
// NOFIB: mtu[2] = 1500
// NOFIB: mtu[6] = 7
// NOFIB: mtu[7] = 7
// NOFIB: mtu[9] = 1500
// NOFIB: mtu[11] = 1500
// NOFIB: mtu[12] = 1500
// NOFIB: rc[0] = 100
// NOFIB-NEXT: rc[1] = 101
// NOFIB-NEXT: rc[2] = 100
// NOFIB-NEXT: rc[3] = 101
// NOFIB-NEXT: rc[4] = 101
// NOFIB-NEXT: rc[5] = 100
// NOFIB-NEXT: rc[6] = 78
// NOFIB-NEXT: rc[7] = 78
// NOFIB-NEXT: rc[8] = 100
// NOFIB-NEXT: rc[9] = 100
// NOFIB-NEXT: rc[10] = 100
// NOFIB-NEXT: rc[11] = 100
// NOFIB-NEXT: rc[12] = 101
// NOFIB-NEXT: rc[13] = 100
// NOFIB-NEXT: rc[14] = 100
// With the namespace's table (tests/lit/loader/Inputs/fib.fib: lo 65536,
// lan 1500, wan 1400, dmz 9000), from the WAN link.
// RUN: ebpf-gpu-loader run %t.o --section mtu_cases --pcap %t.pcap --backend host --fib %S/Inputs/fib.fib --ingress-ifindex 3 --dump-maps %t.fib.maps
// RUN: FileCheck %s --check-prefix=FIB < %t.fib.maps
// FIB: mtu[0] = 1400
// FIB: mtu[9] = 9000
// FIB: mtu[10] = 1400
// FIB: mtu[11] = 7
// FIB: mtu[12] = 65536
// FIB: rc[9] = 100
// FIB-NEXT: rc[10] = 101
// FIB-NEXT: rc[11] = 81
// FIB-NEXT: rc[12] = 100
// The kernel's helper in a network namespace with those links, from the LAN
// and WAN links: the same verdicts and maps, packet for packet.
// RUN: %if kernel-bpf && netns %{ rm -rf %t.ns && mkdir -p %t.ns %}
// RUN: %if kernel-bpf && netns %{ %python %S/Inputs/fib-netns.py progs ebpf-gpu-loader %S/Inputs/fib.fib %t.ns %t.o:mtu_cases | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: the namespace's table is fib.fib
// KERNEL-NEXT: mtu_cases from ifindex 2: {{.*}}; 0 differences between host and kernel
// KERNEL-NEXT: mtu_cases from ifindex 3: {{.*}}; 0 differences between host and kernel
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

#define CASES 16

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, CASES);
  __type(key, __u32);
  __type(value, __s64);
} rc SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, CASES);
  __type(key, __u32);
  __type(value, __u64);
} mtu SEC(".maps");

static __always_inline void check(struct xdp_md *ctx, __u32 i, __u32 ifindex, __u32 l3,
                                  __s32 diff, __u64 flags) {
  __u32 len = l3 ? l3 : 7;
  __s64 r = bpf_check_mtu(ctx, ifindex, &len, diff, flags) + 100;
  __u64 m = len;
  bpf_map_update_elem(&rc, &i, &r, BPF_ANY);
  bpf_map_update_elem(&mtu, &i, &m, BPF_ANY);
}

SEC("xdp") int mtu_cases(struct xdp_md *ctx) {
  check(ctx, 0, 0, 0, 0, 0);
  check(ctx, 1, 0, 0, 1500, 0);
  check(ctx, 2, 0, 1500, 0, 0);
  check(ctx, 3, 0, 1501, 0, 0);
  check(ctx, 4, 0, 1500, 1, 0);
  check(ctx, 5, 0, 1500, -1, 0);
  check(ctx, 6, 0, 0, 0, BPF_MTU_CHK_SEGS);
  check(ctx, 7, 0, 0, 0, 2);
  check(ctx, 8, 0, 0, -100000, 0);
  check(ctx, 9, 4, 0, 0, 0);
  check(ctx, 10, 3, 1401, 0, 0);
  check(ctx, 11, 99, 0, 0, 0);
  check(ctx, 12, 1, 0, 60000, 0);
  check(ctx, 13, 0, 0xffffffff, 0, 0);
  check(ctx, 14, 0, 0, 0x7fffffff, 0);
  // Packets longer than 114 bytes do not fit 1500 + 14 grown by 1400:
  // counted over the run.
  __u32 k = 15, len = 0;
  __s64 *big = bpf_map_lookup_elem(&rc, &k);
  if (!big)
    return XDP_ABORTED;
  if (bpf_check_mtu(ctx, 2, &len, 1400, 0) == BPF_MTU_CHK_RET_FRAG_NEEDED)
    __sync_fetch_and_add(big, 1);
  return XDP_PASS;
}
