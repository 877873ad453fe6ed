// SPDX-License-Identifier: Apache-2.0
// ebpf-gpu's kfunc ebpf_gpu_classify (api/include/ebpf-gpu/kfuncs.h,
// docs/KFUNCS.md) is verified with typed arguments: r1 int32 features on
// the stack, readable for r2 bytes, r2 a constant from 4 to 256 and a
// multiple of 4 (the model ABI's 64 features), r3 a model map; its result
// an int from -EINVAL to 15 (the model ABI's 16 classes). A model map is
// no map of data: the map helpers refuse it. Case 0 is accepted (its
// result indexes a 16-byte value after only a check for >= 0: the result's
// upper bound is the verifier's); each misuse is refused with one message
// naming the argument. The kernel has neither the kfunc nor the map type:
// compare says so in tests/lit/loader/classify.test.
// RUN: %clang-bpf -I%src/api/include -DCASE=0 -c %s -o %t.0.o
// RUN: %clang-bpf -I%src/api/include -DCASE=1 -c %s -o %t.1.o
// RUN: %clang-bpf -I%src/api/include -DCASE=2 -c %s -o %t.2.o
// RUN: %clang-bpf -I%src/api/include -DCASE=3 -c %s -o %t.3.o
// RUN: %clang-bpf -I%src/api/include -DCASE=4 -c %s -o %t.4.o
// RUN: %clang-bpf -I%src/api/include -DCASE=5 -c %s -o %t.5.o
// RUN: %clang-bpf -I%src/api/include -DCASE=6 -c %s -o %t.6.o
// RUN: %clang-bpf -I%src/api/include -DCASE=7 -c %s -o %t.7.o
// RUN: %clang-bpf -I%src/api/include -DCASE=8 -c %s -o %t.8.o
// RUN: %clang-bpf -I%src/api/include -DCASE=9 -c %s -o %t.9.o
// RUN: ebpf-gpu-cc %t.9.o -o %t.9.gpu.o
// RUN: ebpf-gpu-cc %t.0.o -o %t.0.gpu.o
// RUN: ebpf-gpu-cc %t.0.o --emit=llvm | FileCheck %s --check-prefix=LIFT
// LIFT: call i64 @ebpfgpu_classify(ptr {{.*}}, i64 40, ptr %{{.*}})
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=BADMAP
// BADMAP: pc {{[0-9]+}}: ebpf_gpu_classify argument 3 (r3) must be a model map (BPF_MAP_TYPE_EBPF_GPU_MODEL), is map 'counts' (array) (map_func_compatible(r3))
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=NOTSTACK
// NOTSTACK: pc {{[0-9]+}}: ebpf_gpu_classify argument 1 (r1), the features, must point to the stack, is a map value pointer (type(r1) == stack)
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=VARSIZE
// VARSIZE: pc {{[0-9]+}}: ebpf_gpu_classify argument 2 (r2), features__sz, must be a constant size, is {{.*}} (constant(r2))
// RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=BIG
// BIG: pc {{[0-9]+}}: ebpf_gpu_classify argument 2 (r2), features__sz, must be a whole number of int32 features, 4 to 256 bytes, is 272 (r2 % 4 == 0 && 4 <= r2 <= 256)
// RUN: not ebpf-gpu-cc %t.5.o 2>&1 | FileCheck %s --check-prefix=ODD
// ODD: pc {{[0-9]+}}: ebpf_gpu_classify argument 2 (r2), features__sz, must be a whole number of int32 features, 4 to 256 bytes, is 38 (r2 % 4 == 0 && 4 <= r2 <= 256)
// RUN: not ebpf-gpu-cc %t.6.o 2>&1 | FileCheck %s --check-prefix=HELPER
// HELPER: pc {{[0-9]+}}: bpf_map_lookup_elem cannot use map 'model' (model) (map_func_compatible(r1))
// RUN: not ebpf-gpu-cc %t.7.o 2>&1 | FileCheck %s --check-prefix=NOTMAP
// NOTMAP: pc {{[0-9]+}}: ebpf_gpu_classify argument 3 (r3) must be a model map reference, is a {{.*}} (type(r3) == map)
// RUN: not ebpf-gpu-cc %t.8.o 2>&1 | FileCheck %s --check-prefix=PASTFRAME
// PASTFRAME: pc {{[0-9]+}}: ebpf_gpu_classify argument 1 (r1): {{.*}}

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include <ebpf-gpu/kfuncs.h>

struct {
  __uint(type, BPF_MAP_TYPE_EBPF_GPU_MODEL);
  __uint(max_entries, 4096);
} model SEC(".maps");

struct bytes16 {
  __u8 b[16];
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct bytes16);
} counts SEC(".maps");

SEC("xdp")
int classify_misuse(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  __s32 f[10] = {(__s32)(data_end - data), 1, 2, 3, 4, 5, 6, 7, 8, 9};
  __u32 k = 0;
  int c;
#if CASE == 0
  c = ebpf_gpu_classify(f, sizeof(f), &model);
#elif CASE == 1
  c = ebpf_gpu_classify(f, sizeof(f), &counts);
#elif CASE == 2
  {
    struct bytes16 *v = bpf_map_lookup_elem(&counts, &k);
    if (!v)
      return XDP_PASS;
    c = ebpf_gpu_classify((const __s32 *)v, 16, &model);
  }
#elif CASE == 3
  // A size the program computes: bounded, not constant.
  c = ebpf_gpu_classify(f, ((__u32)(data_end - data) & 0x1c) + 4, &model);
#elif CASE == 9
  // A constant on each path (accepted: the kernel's rule too), two at the
  // call once the paths join.
  c = ebpf_gpu_classify(f, (data_end - data) > 20 ? 40 : 20, &model);
#elif CASE == 4
  {
    __s32 big[68] = {(__s32)(data_end - data)};
    c = ebpf_gpu_classify(big, sizeof(big), &model);
  }
#elif CASE == 5
  c = ebpf_gpu_classify(f, sizeof(f) - 2, &model);
#elif CASE == 6
  if (bpf_map_lookup_elem(&model, &k))
    return XDP_DROP;
  c = 0;
#elif CASE == 7
  c = ebpf_gpu_classify(f, sizeof(f), (void *)(long)f[0]);
#elif CASE == 8
  // 40 bytes from 8 below the frame's top: past it.
  c = ebpf_gpu_classify(&f[8], sizeof(f), &model);
#endif
  if (c < 0)
    return XDP_PASS;
  struct bytes16 *all = bpf_map_lookup_elem(&counts, &k);
  if (all)
    return all->b[c] ? XDP_DROP : XDP_PASS;
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
