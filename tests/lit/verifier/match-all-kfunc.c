// SPDX-License-Identifier: Apache-2.0
// ebpf-gpu's kfunc ebpf_gpu_match_all (api/include/ebpf-gpu/kfuncs.h,
// docs/KFUNCS.md) is verified with typed arguments: r1 to r3 as
// ebpf_gpu_match's, r4 a bitmap on the stack at a constant 8-aligned
// offset that it writes for r5 bytes (a constant, 8 to 256, a multiple of
// 8); its result from -EINVAL to the bitmap's bits. Case 0 is accepted: the
// bitmap is read after the call without having been written before (the
// kfunc wrote it), and the count indexes a 65-entry array with no other
// check than >= 0 (the result is at most 64 for an 8-byte bitmap). Each
// misuse is refused with one message naming the argument.
// RUN: %clang-bpf -I%src/api/include -DCASE=0 -c %s -o %t.0.o
// RUN: %clang-bpf -I%src/api/include -DCASE=1 -c %s -o %t.1.o
// RUN: %clang-bpf -I%src/api/include -DCASE=2 -c %s -o %t.2.o
// RUN: %clang-bpf -I%src/api/include -DCASE=3 -c %s -o %t.3.o
// RUN: %clang-bpf -I%src/api/include -DCASE=4 -c %s -o %t.4.o
// RUN: %clang-bpf -I%src/api/include -DCASE=5 -c %s -o %t.5.o
// RUN: %clang-bpf -I%src/api/include -DCASE=7 -c %s -o %t.7.o
// RUN: %clang-bpf -I%src/api/include -DCASE=8 -c %s -o %t.8.o
// RUN: ebpf-gpu-cc %t.0.o -o %t.0.gpu.o
// RUN: ebpf-gpu-cc %t.0.o --emit=llvm | FileCheck %s --check-prefix=LIFT
// LIFT: call i64 @ebpfgpu_match_all(ptr {{.*}}%ctx, i64 %{{.*}}, ptr %{{.*}}, ptr {{.*}}%{{.*}}, i64 8)
// RUN: ebpf-gpu-cc %t.0.o --emit=ptx --target=sm_90 -o %t.0.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.0.ptx -o %t.0.cubin %}
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=NOTSTACK
// NOTSTACK: pc {{[0-9]+}}: ebpf_gpu_match_all argument 4 (r4), the bitmap, must point to the stack at a constant 8-aligned offset, is {{.*}} (type(r4) == stack && r4.off % 8 == 0)
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=UNALIGNED
// UNALIGNED: pc {{[0-9]+}}: ebpf_gpu_match_all argument 4 (r4), the bitmap, must point to the stack at a constant 8-aligned offset, is stack pointer frame0-{{[0-9]+}} (type(r4) == stack && r4.off % 8 == 0)
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=VARSIZE
// VARSIZE: pc {{[0-9]+}}: ebpf_gpu_match_all argument 5 (r5), bitmap__sz, must be a constant size, is {{.*}} (constant(r5))
// RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=ODDSIZE
// ODDSIZE: pc {{[0-9]+}}: ebpf_gpu_match_all argument 5 (r5), bitmap__sz, must be a whole number of u64 words, 8 to 256 bytes, is 12 (r5 % 8 == 0 && 8 <= r5 <= 256)
// RUN: not ebpf-gpu-cc %t.5.o 2>&1 | FileCheck %s --check-prefix=BIGSIZE
// BIGSIZE: pc {{[0-9]+}}: ebpf_gpu_match_all argument 5 (r5), bitmap__sz, must be a whole number of u64 words, 8 to 256 bytes, is 264 (r5 % 8 == 0 && 8 <= r5 <= 256)
// RUN: not ebpf-gpu-cc %t.7.o 2>&1 | FileCheck %s --check-prefix=BADMAP
// BADMAP: pc {{[0-9]+}}: ebpf_gpu_match_all argument 3 (r3) must be a pattern map (BPF_MAP_TYPE_EBPF_GPU_PATTERNS), is map 'counts' (array) (map_func_compatible(r3))
// RUN: not ebpf-gpu-cc %t.8.o 2>&1 | FileCheck %s --check-prefix=BADCTX
// BADCTX: pc {{[0-9]+}}: ebpf_gpu_match_all argument 1 (r1) must be the context pointer, is {{.*}} (type(r1) == ctx)

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <ebpf-gpu/kfuncs.h>

struct {
  __uint(type, BPF_MAP_TYPE_EBPF_GPU_PATTERNS);
  __uint(max_entries, 4096);
} rules SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 65);
  __type(key, __u32);
  __type(value, __u64);
} counts SEC(".maps");

SEC("xdp")
int match_all_misuse(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  __u32 off = data_end - data > 14 ? 14 : 0;
  __u64 bits[CASE == 0 ? 1 : 33];
  int n;
#if CASE == 0
  n = ebpf_gpu_match_all(ctx, off, &rules, bits, 8);
  if (n >= 0) {
    // No bound but the verifier's: n <= 64 < 65 entries.
    __u64 *v = bpf_map_lookup_elem(&counts, &n);
    if (v)
      *v += bits[0] & 1;
    __u8 c[65] = {};
    c[n] = 1; // a stack array indexed by the count: in bounds by the range alone
    return c[n] + c[0] ? XDP_DROP : XDP_PASS;
  }
#elif CASE == 1
  {
    __u32 k = 0;
    __u64 *v = bpf_map_lookup_elem(&counts, &k);
    if (!v)
      return XDP_PASS;
    n = ebpf_gpu_match_all(ctx, off, &rules, v, 8);
  }
#elif CASE == 2
  n = ebpf_gpu_match_all(ctx, off, &rules, (__u64 *)((char *)bits + 4), 8);
#elif CASE == 3
  n = ebpf_gpu_match_all(ctx, off, &rules, bits, (data_end - data) & 0xf8);
#elif CASE == 4
  n = ebpf_gpu_match_all(ctx, off, &rules, bits, 12);
#elif CASE == 5
  n = ebpf_gpu_match_all(ctx, off, &rules, bits, 264);
#elif CASE == 7
  n = ebpf_gpu_match_all(ctx, off, &counts, bits, 8);
#elif CASE == 8
  n = ebpf_gpu_match_all((struct xdp_md *)data, off, &rules, bits, 8);
#endif
  return n > 0 && bits[0] ? XDP_DROP : XDP_PASS;
}

char _license[] SEC("license") = "GPL";
