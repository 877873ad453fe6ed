// Several programs in one object, in several sections: each function is a
// program; --section picks one by function or section name.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-cc %t.o --emit=insns | FileCheck %s --check-prefix=ALL
// RUN: not ebpf-gpu-cc %t.o --emit=llvm 2>&1 | FileCheck %s --check-prefix=AMBIG
// RUN: ebpf-gpu-cc %t.o --emit=llvm --section xdp/second | FileCheck %s --check-prefix=SECOND
// RUN: ebpf-gpu-cc %t.o --emit=llvm --section third | FileCheck %s --check-prefix=THIRD
// RUN: not ebpf-gpu-cc %t.o --section nope 2>&1 | FileCheck %s --check-prefix=NOPE
// ALL: program first (section xdp, 2 insns)
// ALL: program also_first (section xdp, 2 insns)
// ALL: program second (section xdp/second, 2 insns)
// ALL: program third (section xdp.frags, 2 insns)
// AMBIG: ebpf-gpu-cc: error: {{.*}}.o: 4 programs; choose one with --section (first, also_first, second, third)
// SECOND: define {{.*}}i64 @second(
// SECOND-NEXT: entry:
// SECOND-NEXT: ret i64 3
// SECOND-NOT: define
// THIRD: define {{.*}}i64 @third(
// NOPE: error: {{.*}}: no program or section named 'nope' (have: first (xdp), also_first (xdp), second (xdp/second), third (xdp.frags))

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp") int first(struct xdp_md *ctx) { return XDP_PASS; }
SEC("xdp") int also_first(struct xdp_md *ctx) { return XDP_DROP; }
SEC("xdp/second") int second(struct xdp_md *ctx) { return XDP_TX; }
SEC("xdp.frags") int third(struct xdp_md *ctx) { return XDP_ABORTED; }
