// SPDX-License-Identifier: GPL-2.0
// A helper ebpf-gpu does not offer is refused by name (the kernel's UAPI
// header names every helper id), and the kernel's socket helpers say why:
// no packet run by ebpf-gpu reaches a socket of the kernel's network
// stack. The kernel here accepts the programs that call helpers it defines
// with the arguments it wants; an id it does not define is refused by both.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: not ebpf-gpu-cc %t.o --section socket 2>&1 | FileCheck %s --check-prefix=SOCKET
// SOCKET: unsupported-helpers.c:[[@LINE+22]]: pc {{[0-9]+}}: bpf_sk_lookup_tcp (helper 84) is not supported for xdp programs: it works on sockets of the kernel's network stack, which packets run by ebpf-gpu never reach (known_helper(84))
// RUN: not ebpf-gpu-cc %t.o --section cookie 2>&1 | FileCheck %s --check-prefix=COOKIE
// COOKIE: bpf_skc_lookup_tcp (helper 99) is not supported for xdp programs: it works on sockets of the kernel's network stack, which packets run by ebpf-gpu never reach (known_helper(99))
// RUN: not ebpf-gpu-cc %t.o --section cookie_only 2>&1 | FileCheck %s --check-prefix=COOKIE-ONLY
// COOKIE-ONLY: bpf_tcp_check_syncookie (helper 100) is not supported for xdp programs: it works on sockets of the kernel's network stack, which packets run by ebpf-gpu never reach (bpf_tcp_raw_gen_syncookie_ipv4/_ipv6 and bpf_tcp_raw_check_syncookie_ipv4/_ipv6 need none)
// RUN: not ebpf-gpu-cc %t.o --section probe_read 2>&1 | FileCheck %s --check-prefix=PROBE
// PROBE: pc {{[0-9]+}}: bpf_probe_read_kernel (helper 113) is not supported for xdp programs (known_helper(113))
// RUN: not ebpf-gpu-cc %t.o --section no_such 2>&1 | FileCheck %s --check-prefix=NOSUCH
// NOSUCH: pc {{[0-9]+}}: helper function 9999 is not supported for xdp programs (known_helper(9999))
// RUN: %if kernel-bpf %{ ebpf-gpu-trafgen -o %t.pcap --count 4 --seed 1 %}
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --pcap %t.pcap | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: socket: kernel: {{.*}}bpf_sk_lookup_tcp (helper 84)
// KERNEL: cookie: kernel: {{.*}}bpf_skc_lookup_tcp (helper 99)
// KERNEL: cookie_only: neither: R1 type=scalar expected=sock_common
// KERNEL: probe_read: kernel: {{.*}}bpf_probe_read_kernel (helper 113)
// KERNEL: no_such: neither: {{.*}}9999

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp") int socket(struct xdp_md *ctx) {
  struct bpf_sock_tuple t = {};
  struct bpf_sock *s = bpf_sk_lookup_tcp(ctx, &t, sizeof(t.ipv4), -1, 0);
  if (s) {
    bpf_sk_release(s);
    return XDP_DROP;
  }
  return XDP_PASS;
}

SEC("xdp") int cookie(struct xdp_md *ctx) {
  struct bpf_sock_tuple t = {};
  struct bpf_sock *s = bpf_skc_lookup_tcp(ctx, &t, sizeof(t.ipv4), -1, 0);
  if (!s)
    return XDP_PASS;
  __u8 hdrs[40] = {0x45};
  __s64 c = bpf_tcp_gen_syncookie(s, hdrs, 20, hdrs + 20, 20);
  bpf_sk_release(s);
  return c < 0 ? XDP_DROP : XDP_PASS;
}

// No socket to give it: the kernel refuses the null pointer.
SEC("xdp") int cookie_only(struct xdp_md *ctx) {
  __u8 hdrs[40] = {0x45};
  return bpf_tcp_check_syncookie(0, hdrs, 20, hdrs + 20, 20) ? XDP_DROP : XDP_PASS;
}

SEC("xdp") int probe_read(struct xdp_md *ctx) {
  long v = 0;
  return bpf_probe_read_kernel(&v, sizeof(v), (void *)(long)ctx->data) ? XDP_DROP : XDP_PASS;
}

SEC("xdp") int no_such(struct xdp_md *ctx) {
  return ((long (*)(void))9999)() ? XDP_DROP : XDP_PASS;
}

char _license[] SEC("license") = "GPL";
