// SPDX-License-Identifier: GPL-2.0
// ctx->egress_ifindex is readable only by devmap programs, as in the
// kernel (xdp_md's egress device exists only for a program run from a
// devmap entry): the expected attach type BPF_XDP_DEVMAP, which libbpf 1.x
// gives sections `xdp/devmap` and `xdp.frags/devmap` and no longer the
// legacy `xdp_devmap/` prefix. Elsewhere it is refused, naming the field
// and why, by ours and by the kernel's verifier.
// RUN: %clang-bpf -DCASE=1 -c %s -o %t.1.o
// RUN: %clang-bpf -DCASE=2 -c %s -o %t.2.o
// RUN: %clang-bpf -DCASE=3 -c %s -o %t.3.o
// RUN: %clang-bpf -DCASE=4 -c %s -o %t.4.o
// RUN: not ebpf-gpu-cc %t.1.o --section egress 2>&1 | FileCheck %s --check-prefix=XDP
// XDP: egress-ifindex.c:{{[0-9]+}}: pc {{[0-9]+}}: invalid context access: egress_ifindex is readable only in devmap programs (section xdp/devmap or xdp.frags/devmap, the attach type BPF_XDP_DEVMAP), not in section 'xdp' (valid_access(ctx, off=20, width=4))
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=LEGACY
// LEGACY: invalid context access: egress_ifindex is readable only in devmap programs {{.*}} not in section 'xdp_devmap/legacy'
// RUN: ebpf-gpu-cc %t.3.o -o %t.3.gpu.o
// RUN: ebpf-gpu-cc %t.4.o -o %t.4.gpu.o
// RUN: ebpf-gpu-cc %t.3.o --emit=ptx --target=sm_90 -o %t.3.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.3.ptx -o %t.3.cubin %}
// The other fields stay readable everywhere.
// RUN: ebpf-gpu-cc %t.1.o --section ingress -o %t.1.gpu.o
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.1.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.2.o %}
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-refuses.sh %t.3.o --by-section | FileCheck %s --check-prefix=KERNEL-ACCEPTS %}
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-refuses.sh %t.4.o --by-section | FileCheck %s --check-prefix=KERNEL-ACCEPTS %}
// KERNEL-ACCEPTS: the kernel ACCEPTED

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#if CASE == 1
#define SECTION "xdp"
#elif CASE == 2
#define SECTION "xdp_devmap/legacy"
#elif CASE == 3
#define SECTION "xdp/devmap"
#else
#define SECTION "xdp.frags/devmap"
#endif

SEC(SECTION) int egress(struct xdp_md *ctx) {
  return ctx->egress_ifindex == 7 ? XDP_DROP : XDP_PASS;
}

#if CASE == 1
SEC("xdp") int ingress(struct xdp_md *ctx) {
  return ctx->ingress_ifindex + ctx->rx_queue_index == 7 ? XDP_DROP : XDP_PASS;
}
#endif

char _license[] SEC("license") = "GPL";
