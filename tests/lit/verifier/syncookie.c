// SPDX-License-Identifier: GPL-2.0
// The SYN cookie helpers' arguments as the kernel's prototypes say: the IP
// header a whole struct iphdr (20 bytes) or ipv6hdr (40) of readable
// memory, the TCP header memory of th_len bytes (gen) or 20 (check), the
// packet allowed; GPL only. Cases 1 to 5 are refused by ours and by the
// kernel's verifier; case 6 (headers in the packet, th_len from doff) is
// accepted by both.
// RUN: %clang-bpf -DCASE=1 -c %s -o %t.1.o
// RUN: %clang-bpf -DCASE=2 -c %s -o %t.2.o
// RUN: %clang-bpf -DCASE=3 -c %s -o %t.3.o
// RUN: %clang-bpf -DCASE=4 -c %s -o %t.4.o
// RUN: %clang-bpf -DCASE=6 -c %s -o %t.6.o
// RUN: %clang-bpf -DCASE=5 -DLICENSE='"Dual BSD/GPL-not"' -c %s -o %t.5.o
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=SHORTIP
// SHORTIP: bpf_tcp_raw_gen_syncookie_ipv4 argument 1 (r1): packet read of 20 bytes at offset 14 not proven within packet (have 24)
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=IP6
// IP6: bpf_tcp_raw_check_syncookie_ipv6 argument 1 (r1): stack read of 40 bytes at r10-{{[0-9]+}} is outside the 512-byte frame
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=THLEN
// THLEN: bpf_tcp_raw_gen_syncookie_ipv4 argument 2 (r2): packet read of 60 bytes at offset 34 not proven within packet (have 54)
// RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=NULL
// NULL: bpf_tcp_raw_check_syncookie_ipv4 argument 2 (r2) must point to 20 bytes of memory, is a scalar (type(r2) == mem)
// RUN: not ebpf-gpu-cc %t.5.o 2>&1 | FileCheck %s --check-prefix=GPL
// GPL: bpf_tcp_raw_gen_syncookie_ipv4 is GPL-only; the program's license 'Dual BSD/GPL-not' is not GPL-compatible
// RUN: ebpf-gpu-cc %t.6.o -o %t.6.gpu.o
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.1.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.2.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.3.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.4.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.5.o %}
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-refuses.sh %t.6.o | FileCheck %s --check-prefix=KERNEL-ACCEPTS %}
// KERNEL-ACCEPTS: the kernel ACCEPTED

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <bpf/bpf_helpers.h>

#ifndef LICENSE
#define LICENSE "GPL"
#endif
char _license[] SEC("license") = LICENSE;

SEC("xdp") int prog(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  struct iphdr *iph = data + sizeof(struct ethhdr);
  struct tcphdr *th = (void *)(iph + 1);
  long r = 0;
#if CASE == 1 // the IP header not all in the proven packet
  if (data + 24 > end)
    return XDP_PASS;
  struct tcphdr t = {};
  r = bpf_tcp_raw_gen_syncookie_ipv4(iph, &t, sizeof(t));
#elif CASE == 2 // 20 bytes of stack where an IPv6 header takes 40
  struct {
    struct tcphdr t;
    struct iphdr ip;
  } s = {};
  r = bpf_tcp_raw_check_syncookie_ipv6((void *)&s.ip, &s.t);
#elif CASE == 3 // th_len past the proven TCP header
  if ((void *)(th + 1) > end)
    return XDP_PASS;
  r = bpf_tcp_raw_gen_syncookie_ipv4(iph, th, th->doff * 4);
#elif CASE == 4 // no TCP header
  struct iphdr ip = {};
  r = bpf_tcp_raw_check_syncookie_ipv4(&ip, 0);
#elif CASE == 5
  struct iphdr ip = {};
  struct tcphdr t = {};
  r = bpf_tcp_raw_gen_syncookie_ipv4(&ip, &t, sizeof(t));
#else
  if ((void *)th + 60 > end)
    return XDP_PASS;
  __u32 len = th->doff * 4;
  if (len < 20)
    return XDP_PASS;
  r = bpf_tcp_raw_gen_syncookie_ipv4(iph, th, len);
  if (bpf_tcp_raw_check_syncookie_ipv4(iph, th) == 0)
    return XDP_TX;
#endif
  return r < 0 ? XDP_DROP : XDP_PASS;
}
