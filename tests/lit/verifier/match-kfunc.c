// SPDX-License-Identifier: Apache-2.0
// ebpf-gpu's kfunc ebpf_gpu_match (api/include/ebpf-gpu/kfuncs.h,
// docs/KFUNCS.md) is verified with typed arguments: r1 the context as the
// program got it, r2 a scalar offset (any: the runtime checks it against
// the packet), r3 a pattern map; its result an int from -EINVAL up. A
// pattern map is no map of data: the map helpers refuse it. Case 0 is
// accepted (and its result used as an array index after a bounds check);
// each misuse is refused with one message naming the argument. The
// kernel has neither the kfunc nor the map type: compare says so in
// tests/lit/loader/ids-match.test.
// RUN: %clang-bpf -I%src/api/include -DCASE=0 -c %s -o %t.0.o
// RUN: %clang-bpf -I%src/api/include -DCASE=1 -c %s -o %t.1.o
// RUN: %clang-bpf -I%src/api/include -DCASE=2 -c %s -o %t.2.o
// RUN: %clang-bpf -I%src/api/include -DCASE=3 -c %s -o %t.3.o
// RUN: %clang-bpf -I%src/api/include -DCASE=4 -c %s -o %t.4.o
// RUN: %clang-bpf -I%src/api/include -DCASE=5 -c %s -o %t.5.o
// RUN: %clang-bpf -I%src/api/include -DCASE=6 -c %s -o %t.6.o
// RUN: ebpf-gpu-cc %t.0.o -o %t.0.gpu.o
// RUN: ebpf-gpu-cc %t.0.o --emit=llvm | FileCheck %s --check-prefix=LIFT
// LIFT: call i64 @ebpfgpu_match(ptr {{.*}}%ctx, i64 %{{.*}}, ptr %{{.*}})
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=BADMAP
// BADMAP: pc {{[0-9]+}}: ebpf_gpu_match argument 3 (r3) must be a pattern map (BPF_MAP_TYPE_EBPF_GPU_PATTERNS), is map 'counts' (array) (map_func_compatible(r3))
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=BADCTX
// BADCTX: pc {{[0-9]+}}: ebpf_gpu_match argument 1 (r1) must be the context pointer, is {{.*}} (type(r1) == ctx)
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=PTROFF
// PTROFF: pc {{[0-9]+}}: ebpf_gpu_match argument 2 (r2), the offset in the packet, must be a scalar, is a packet pointer (type(r2) == scalar)
// RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=NOTMAP
// NOTMAP: pc {{[0-9]+}}: ebpf_gpu_match argument 3 (r3) must be a pattern map reference, is a {{.*}} (type(r3) == map)
// RUN: not ebpf-gpu-cc %t.5.o 2>&1 | FileCheck %s --check-prefix=HELPER
// HELPER: pc {{[0-9]+}}: bpf_map_lookup_elem cannot use map 'rules' (patterns) (map_func_compatible(r1))
// RUN: not ebpf-gpu-cc %t.6.o 2>&1 | FileCheck %s --check-prefix=UNBOUNDED
// UNBOUNDED: pc {{[0-9]+}}: offset added to r{{[0-9]}} (map value pointer) is unbounded (r{{[0-9]}} = scalar(u0..2147483647,s0..2147483647)) (bounded(r{{[0-9]}}))

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#if CASE == 3
// A program's own declaration, the offset a pointer: the object names the
// kfunc all the same.
#define BPF_MAP_TYPE_EBPF_GPU_PATTERNS 0x45470001
extern int ebpf_gpu_match(struct xdp_md *ctx, void *offset, void *patterns) __ksym;
#else
#include <ebpf-gpu/kfuncs.h>
#endif

struct {
  __uint(type, BPF_MAP_TYPE_EBPF_GPU_PATTERNS);
  __uint(max_entries, 4096);
} rules SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 64);
  __type(key, __u32);
  __type(value, __u64);
} counts SEC(".maps");

SEC("xdp")
int match_misuse(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  __u32 off = data_end - data > 14 ? 14 : 0;
  int id;
#if CASE == 0 || CASE == 6
  id = ebpf_gpu_match(ctx, off, &rules);
#elif CASE == 1
  id = ebpf_gpu_match(ctx, off, &counts);
#elif CASE == 2
  id = ebpf_gpu_match((struct xdp_md *)data, off, &rules);
#elif CASE == 3
  id = ebpf_gpu_match(ctx, data, &rules);
#elif CASE == 4
  id = ebpf_gpu_match(ctx, off, (void *)(long)off);
#elif CASE == 5
  {
    __u32 k = 0;
    if (bpf_map_lookup_elem(&rules, &k))
      return XDP_DROP;
    id = -2;
  }
#endif
#if CASE == 6
  // The result is at most 2^31 - 1, not below 64: unchecked, it indexes
  // past the value.
  __u64 *all = bpf_map_lookup_elem(&counts, &(__u32){0});
  if (all && id >= 0)
    return ((__u8 *)all)[id] ? XDP_DROP : XDP_PASS;
  return XDP_PASS;
#else
  if (id >= 0 && id < 64) {
    __u32 k = id;
    __u64 *c = bpf_map_lookup_elem(&counts, &k);
    if (c)
      __sync_fetch_and_add(c, 1);
    return XDP_DROP;
  }
  return XDP_PASS;
#endif
}

char LICENSE[] SEC("license") = "GPL";
