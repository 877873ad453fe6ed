// SPDX-License-Identifier: Apache-2.0
// What a program may do with an xskmap, as the kernel's verifier decides:
// bpf_map_update_elem and _delete_elem on it are refused (cases 2, 3: only
// user space fills it); bpf_map_lookup_elem is allowed, and its result
// (the kernel's PTR_TO_XDP_SOCK) may be null-checked (case 6) but not
// written (case 5) nor read past the 4-byte queue_id of struct bpf_xdp_sock
// (case 4), in the kernel's words; nor read before the null check (case 7).
// bpf_redirect_map into it takes any flags at load time (case 8: the
// helper answers XDP_ABORTED for BPF_F_BROADCAST when it runs). The kernel
// lets a program read queue_id (case 1), which has no meaning off the
// kernel yet: ebpf-gpu refuses it, saying so (docs/MAPS.md, "xskmap").
// RUN: %clang-bpf -DCASE=1 -c %s -o %t.1.o
// RUN: %clang-bpf -DCASE=2 -c %s -o %t.2.o
// RUN: %clang-bpf -DCASE=3 -c %s -o %t.3.o
// RUN: %clang-bpf -DCASE=4 -c %s -o %t.4.o
// RUN: %clang-bpf -DCASE=5 -c %s -o %t.5.o
// RUN: %clang-bpf -DCASE=6 -c %s -o %t.6.o
// RUN: %clang-bpf -DCASE=7 -c %s -o %t.7.o
// RUN: %clang-bpf -DCASE=8 -c %s -o %t.8.o
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=QUEUEID
// QUEUEID: pc {{[0-9]+}}: r{{[0-9]}} invalid xdp_sock access off=0 size=4 (the kernel's queue_id: not available off the kernel)
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=UPDATE
// UPDATE: pc {{[0-9]+}}: bpf_map_update_elem cannot use map 'xsks' (xskmap)
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=DELETE
// DELETE: pc {{[0-9]+}}: bpf_map_delete_elem cannot use map 'xsks' (xskmap)
// RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=READ
// READ: pc {{[0-9]+}}: r1 invalid xdp_sock access off=4 size=1 (no_access(xdp_sock))
// RUN: not ebpf-gpu-cc %t.5.o 2>&1 | FileCheck %s --check-prefix=WRITE
// WRITE: pc {{[0-9]+}}: r0 cannot write into xdp_sock (writable(r0))
// RUN: not ebpf-gpu-cc %t.7.o 2>&1 | FileCheck %s --check-prefix=NULL
// NULL: pc {{[0-9]+}}: r0 may be null
// RUN: ebpf-gpu-cc %t.6.o --emit=verifier-log | FileCheck %s --check-prefix=OK
// RUN: ebpf-gpu-cc %t.8.o --emit=verifier-log | FileCheck %s --check-prefix=OK
// OK: verified:
// The kernel's reasons, and its acceptance of cases 1, 6 and 8.
// RUN: %if kernel-bpf %{ bpftool prog load %t.1.o /sys/fs/bpf/ebpf_gpu_lit_xskmap_1 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_xskmap_1 %}
// RUN: %if kernel-bpf %{ not bpftool prog load %t.2.o /sys/fs/bpf/ebpf_gpu_lit_xskmap_2 type xdp 2>&1 | FileCheck %s --check-prefix=K2 %}
// K2: cannot pass map_type 17 into func bpf_map_update_elem#2
// RUN: %if kernel-bpf %{ not bpftool prog load %t.3.o /sys/fs/bpf/ebpf_gpu_lit_xskmap_3 type xdp 2>&1 | FileCheck %s --check-prefix=K3 %}
// K3: cannot pass map_type 17 into func bpf_map_delete_elem#3
// RUN: %if kernel-bpf %{ not bpftool prog load %t.4.o /sys/fs/bpf/ebpf_gpu_lit_xskmap_4 type xdp 2>&1 | FileCheck %s --check-prefix=K4 %}
// K4: R1 invalid xdp_sock access off=4 size=1
// RUN: %if kernel-bpf %{ not bpftool prog load %t.5.o /sys/fs/bpf/ebpf_gpu_lit_xskmap_5 type xdp 2>&1 | FileCheck %s --check-prefix=K5 %}
// K5: R0 cannot write into xdp_sock
// RUN: %if kernel-bpf %{ bpftool prog load %t.6.o /sys/fs/bpf/ebpf_gpu_lit_xskmap_6 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_xskmap_6 %}
// RUN: %if kernel-bpf %{ not bpftool prog load %t.7.o /sys/fs/bpf/ebpf_gpu_lit_xskmap_7 type xdp 2>&1 | FileCheck %s --check-prefix=K7 %}
// K7: R0 invalid mem access '{{map_value_or_null|xdp_sock_or_null}}'
// RUN: %if kernel-bpf %{ bpftool prog load %t.8.o /sys/fs/bpf/ebpf_gpu_lit_xskmap_8 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_xskmap_8 %}

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_XSKMAP);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, __u32);
} xsks SEC(".maps");

SEC("xdp") int prog(struct xdp_md *ctx) {
  __u32 key = 0;
#if CASE == 1
  struct bpf_xdp_sock *v = bpf_map_lookup_elem(&xsks, &key);
  return v && v->queue_id ? XDP_DROP : XDP_PASS;
#elif CASE == 2
  __u32 v = 3;
  return bpf_map_update_elem(&xsks, &key, &v, BPF_ANY) ? XDP_DROP : XDP_PASS;
#elif CASE == 3
  return bpf_map_delete_elem(&xsks, &key) ? XDP_DROP : XDP_PASS;
#elif CASE == 4
  __u32 *v = bpf_map_lookup_elem(&xsks, &key);
  return v && *((volatile __u8 *)v + 4) ? XDP_DROP : XDP_PASS;
#elif CASE == 5
  __u32 *v = bpf_map_lookup_elem(&xsks, &key);
  if (v)
    *(volatile __u32 *)v = 1;
  return XDP_PASS;
#elif CASE == 6
  __u32 *v = bpf_map_lookup_elem(&xsks, &key);
  return v ? XDP_DROP : XDP_PASS;
#elif CASE == 7
  __u32 *v = bpf_map_lookup_elem(&xsks, &key);
  return *(volatile __u32 *)v ? XDP_DROP : XDP_PASS;
#else
  return bpf_redirect_map(&xsks, ctx->rx_queue_index, BPF_F_BROADCAST | XDP_PASS);
#endif
}

char _license[] SEC("license") = "GPL";
