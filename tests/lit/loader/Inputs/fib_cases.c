// SPDX-License-Identifier: GPL-2.0
//
// bpf_fib_lookup case by case: each packet carries one call's arguments
// after its Ethernet header (u32 flags, u32 plen, then the 64-byte struct
// bpf_fib_lookup); the program makes the call and writes the return code
// (s64) and the struct as the helper left it back over them, so every
// output field of every case is in the output packet.

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct fib_case {
  __u32 flags;
  __u32 plen;
  struct bpf_fib_lookup params;
};

SEC("xdp")
int fib_cases(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct fib_case *c = data + 14;
  if ((void *)(c + 1) > data_end)
    return XDP_DROP;
  struct bpf_fib_lookup p;
  __builtin_memcpy(&p, &c->params, sizeof(p));
  __u32 plen = ((c->plen - 1) & 63) + 1; // 1..64, bounded for the verifiers
  __s64 rc = bpf_fib_lookup(ctx, &p, plen, c->flags);
  __builtin_memcpy(data + 14, &rc, sizeof(rc));
  __builtin_memcpy(data + 22, &p, sizeof(p));
  return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";
