// SPDX-License-Identifier: Apache-2.0
// The XDP RX metadata kfuncs (bpf_xdp_metadata_rx_timestamp, _rx_hash,
// _rx_vlan_tag) are verified as the kernel's: the context pointer as the
// program got it, then memory of the scalar's size (8; 4 and 4; 2 and 2)
// that the kfunc may read and write: the stack (uninitialised: the kfunc
// fills it), a map value, the packet's metadata or the packet itself once
// proven in bounds; never null. The kernel offers them only to a program
// bound to a device (kernel-dev-bound.py binds it to a veth in a private
// network namespace); unbound, its verifier refuses them all
// ("metadata kfuncs require device-bound program") and BPF_PROG_TEST_RUN
// refuses a bound program (-EINVAL), so no test run compares results:
// what each back end returns is tests/lit/loader/rx-metadata.c's.
// Case 0 is accepted by both; cases 1 to 5 are refused by both.
// RUN: %clang-bpf -DCASE=0 -c %s -o %t.0.o
// RUN: %clang-bpf -DCASE=1 -c %s -o %t.1.o
// RUN: %clang-bpf -DCASE=2 -c %s -o %t.2.o
// RUN: %clang-bpf -DCASE=3 -c %s -o %t.3.o
// RUN: %clang-bpf -DCASE=4 -c %s -o %t.4.o
// RUN: %clang-bpf -DCASE=5 -c %s -o %t.5.o
// RUN: ebpf-gpu-cc %t.0.o -o %t.0.gpu.o
// RUN: ebpf-gpu-cc %t.0.o --emit=ptx --target=sm_90 -o %t.0.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.0.ptx -o %t.0.cubin %}
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=CTX
// CTX: pc {{[0-9]+}}: bpf_xdp_metadata_rx_timestamp argument 1 (r1) must be the context pointer, is {{.*}} (type(r1) == ctx)
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=NULL
// NULL: pc {{[0-9]+}}: bpf_xdp_metadata_rx_hash argument 3 (r3) must point to 4 bytes of memory the kfunc writes, is 0 (type(r3) == mem)
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=PACKET
// PACKET: pc {{[0-9]+}}: bpf_xdp_metadata_rx_vlan_tag argument 2 (r2): packet
// RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=SMALL
// SMALL: pc {{[0-9]+}}: bpf_xdp_metadata_rx_timestamp argument 2 (r2): map value
// RUN: not ebpf-gpu-cc %t.5.o 2>&1 | FileCheck %s --check-prefix=READONLY
// READONLY: pc {{[0-9]+}}: bpf_xdp_metadata_rx_hash argument 2 (r2): {{.*}}read-only
// RUN: %if kernel-adjust-meta %{ %S/Inputs/kernel-dev-bound.py %t.0.o --test-run | FileCheck %s --check-prefix=K0 %}
// K0: the kernel ACCEPTED {{.*}} (bound to a veth)
// K0-NEXT: test run: -22 (Invalid argument)
// RUN: %if kernel-adjust-meta %{ %S/Inputs/kernel-refuses.sh %t.0.o | FileCheck %s --check-prefix=UNBOUND %}
// UNBOUND: the kernel's verifier refused
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-dev-bound.py %t.1.o | FileCheck %s --check-prefix=K1 %}
// K1: the kernel's verifier refused {{.*}}: arg#0 expected pointer to ctx, but got
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-dev-bound.py %t.2.o | FileCheck %s --check-prefix=K2 %}
// K2: the kernel's verifier refused {{.*}}: Possibly NULL pointer passed to trusted arg2
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-dev-bound.py %t.3.o | FileCheck %s --check-prefix=K3 %}
// K3: the kernel's verifier refused {{.*}}: R2 offset is outside of the packet
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-dev-bound.py %t.4.o | FileCheck %s --check-prefix=K4 %}
// K4: the kernel's verifier refused {{.*}}: R2 min value is outside of the allowed memory range
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-dev-bound.py %t.5.o | FileCheck %s --check-prefix=K5 %}
// K5: the kernel's verifier refused {{.*}}: write into map forbidden

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

// The kernel's declarations (net/core/xdp.c, include/net/xdp.h).
enum xdp_rss_hash_type { XDP_RSS_TYPE_NONE = 0 };
extern int bpf_xdp_metadata_rx_timestamp(const struct xdp_md *ctx, __u64 *timestamp) __ksym;
extern int bpf_xdp_metadata_rx_hash(const struct xdp_md *ctx, __u32 *hash,
                                    enum xdp_rss_hash_type *rss_type) __ksym;
extern int bpf_xdp_metadata_rx_vlan_tag(const struct xdp_md *ctx, __be16 *vlan_proto,
                                        __u16 *vlan_tci) __ksym;

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} wide SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u32);
} narrow SEC(".maps");

#if CASE == 0
SEC("xdp") int prog(struct xdp_md *ctx) {
  // Into the metadata area, as the kernel selftest xdp_metadata.c does.
  if (bpf_xdp_adjust_meta(ctx, -16))
    return XDP_ABORTED;
  void *meta = (void *)(long)ctx->data_meta, *data = (void *)(long)ctx->data;
  void *end = (void *)(long)ctx->data_end;
  if (meta + 16 > data)
    return XDP_DROP;
  __u32 zero = 0;
  __u64 *ts = bpf_map_lookup_elem(&wide, &zero);
  if (!ts)
    return XDP_DROP;
  int r = bpf_xdp_metadata_rx_timestamp(ctx, ts);
  // Uninitialised stack: the kfunc fills it (the runtime zeroes frames).
  __u32 hash;
  enum xdp_rss_hash_type type;
  r |= bpf_xdp_metadata_rx_hash(ctx, &hash, &type);
  r |= bpf_xdp_metadata_rx_vlan_tag(ctx, (__be16 *)meta, (__u16 *)(meta + 2));
  if (data + 14 > end)
    return XDP_DROP;
  // Into the packet, proven in bounds.
  r |= bpf_xdp_metadata_rx_vlan_tag(ctx, (__be16 *)(data + 12), (__u16 *)(data + 6));
  return r ? XDP_PASS : (hash ^ type) & 1 ? XDP_TX : XDP_DROP;
}
#elif CASE == 1
// Not the context.
SEC("xdp") int prog(struct xdp_md *ctx) {
  __u64 ts;
  return bpf_xdp_metadata_rx_timestamp((struct xdp_md *)&ts, &ts) ? XDP_PASS : XDP_DROP;
}
#elif CASE == 2
// Null where the kfunc writes.
SEC("xdp") int prog(struct xdp_md *ctx) {
  __u32 hash;
  return bpf_xdp_metadata_rx_hash(ctx, &hash, NULL) ? XDP_PASS : XDP_DROP;
}
#elif CASE == 3
// The packet without a bounds check.
SEC("xdp") int prog(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  __u16 tci;
  return bpf_xdp_metadata_rx_vlan_tag(ctx, (__be16 *)data, &tci) ? XDP_PASS : XDP_DROP;
}
#elif CASE == 4
// A 4-byte map value for the 8-byte timestamp.
SEC("xdp") int prog(struct xdp_md *ctx) {
  __u32 zero = 0;
  __u32 *v = bpf_map_lookup_elem(&narrow, &zero);
  if (!v)
    return XDP_DROP;
  return bpf_xdp_metadata_rx_timestamp(ctx, (__u64 *)v) ? XDP_PASS : XDP_DROP;
}
#elif CASE == 5
// A read-only map (.rodata) the kfunc would write.
const volatile __u32 ro_hash = 1;
SEC("xdp") int prog(struct xdp_md *ctx) {
  enum xdp_rss_hash_type type;
  return bpf_xdp_metadata_rx_hash(ctx, (__u32 *)&ro_hash, &type) ? XDP_PASS : XDP_DROP;
}
#endif
