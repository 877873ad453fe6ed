// SPDX-License-Identifier: GPL-2.0
// The kfunc bpf_xdp_pull_data (the kernel's net/core/filter.c, 6.18): makes
// the first `len` bytes of a multi-buffer packet linear. Packets here are
// one buffer, as the kernel's BPF_PROG_TEST_RUN makes them for a program
// without frags, so it answers 0 up to the packet's length and -EINVAL past
// it, as the kernel does: host = kernel on packets that ask for 0 to 2,040
// bytes (the low byte of the IPv4 id times 8). The kernel counts it among the
// kfuncs that change packet data, so a packet pointer taken before the call
// is stale after it: both verifiers refuse a read through one.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: %clang-bpf -DSTALE -c %s -o %t.stale.o
// RUN: ebpf-gpu-cc %t.o -o %t.gpu.o
// RUN: ebpf-gpu-cc %t.o --emit=ptx --target=sm_90 -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: not ebpf-gpu-cc %t.stale.o 2>&1 | FileCheck %s --check-prefix=STALE
// STALE: pull-data.c:[[@LINE+30]]: pc {{[0-9]+}}: r{{[0-9]}} is read before it is written
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 300 --seed 3
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --json | FileCheck %s --check-prefix=HOST
// Packets shorter than what they ask for drop (-EINVAL), the rest pass or,
// at 64 bytes or more, go back out.
// HOST-DAG: "XDP_DROP": {"packets": [[DROP:[1-9][0-9]*]]
// HOST-DAG: "XDP_TX": {"packets": {{[1-9][0-9]*}}
// HOST-DAG: "XDP_ABORTED": {"packets": 0
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --pcap %t.pcap | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: pull: both: 300 packets, host and kernel agree
// RUN: %if kernel-bpf %{ %S/../verifier/Inputs/kernel-refuses.sh %t.stale.o --reason "invalid mem access" %}

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>

extern int bpf_xdp_pull_data(struct xdp_md *x, __u32 len) __ksym;

SEC("xdp") int pull(struct xdp_md *ctx) {
  __u8 *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  struct iphdr *ip = (void *)(data + sizeof(struct ethhdr));
  if ((void *)(ip + 1) > (void *)end)
    return XDP_PASS;
  __u32 want = (__u32)(ip->id >> 8) * 8;
  int r = bpf_xdp_pull_data(ctx, want);
  if (r)
    return r == -22 ? XDP_DROP : XDP_ABORTED;
#ifdef STALE
  // ip was taken before the call.
  return ip->ttl > 1 ? XDP_TX : XDP_PASS;
#else
  data = (void *)(long)ctx->data;
  end = (void *)(long)ctx->data_end;
  if (data + want > end)
    return XDP_ABORTED; // pulled: the bytes asked for are there
  return data + 64 > end ? XDP_PASS : XDP_TX;
#endif
}

char _license[] SEC("license") = "GPL";
