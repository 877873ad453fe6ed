// Ring buffer records are references, tracked as the kernel's verifier
// tracks them: bpf_ringbuf_reserve's result may be null (checked before
// use; a failed reservation holds nothing), its size is the constant
// given, and a record must be submitted or discarded on every path, by a
// pointer to its start, once; its pointers die with it. Each misuse is
// refused by our verifier and by the kernel's; the correct uses load.
// RUN: %clang-bpf -DCASE=1 -c %s -o %t.1.o
// RUN: %clang-bpf -DCASE=2 -c %s -o %t.2.o
// RUN: %clang-bpf -DCASE=3 -c %s -o %t.3.o
// RUN: %clang-bpf -DCASE=4 -c %s -o %t.4.o
// RUN: %clang-bpf -DCASE=5 -c %s -o %t.5.o
// RUN: %clang-bpf -DCASE=6 -c %s -o %t.6.o
// RUN: %clang-bpf -DCASE=7 -c %s -o %t.7.o
// RUN: %clang-bpf -DCASE=8 -c %s -o %t.8.o
// RUN: %clang-bpf -DCASE=9 -c %s -o %t.9.o
// RUN: %clang-bpf -DCASE=10 -c %s -o %t.10.o
// RUN: %clang-bpf -DCASE=11 -c %s -o %t.11.o
// RUN: ebpf-gpu-cc %t.1.o -o %t.1.gpu.o
// RUN: ebpf-gpu-cc %t.2.o -o %t.2.gpu.o
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=LEAK
// LEAK: ringbuf-refs.c:{{[0-9]+}}: pc {{[0-9]+}}: unreleased reference: the ring buffer record reserved at pc {{[0-9]+}} is neither submitted nor discarded on this path (released(ref {{[0-9]+}}))
// RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=NULL
// NULL: may be null: ring buffer record write without a null check (not_null(r0))
// RUN: not ebpf-gpu-cc %t.5.o 2>&1 | FileCheck %s --check-prefix=AFTER
// AFTER: write through r{{[0-9]}}, which is a scalar, not a pointer to memory
// RUN: not ebpf-gpu-cc %t.6.o 2>&1 | FileCheck %s --check-prefix=BOUNDS
// BOUNDS: ring buffer record write of 8 bytes at offset 16 is outside the 16-byte record
// RUN: not ebpf-gpu-cc %t.7.o 2>&1 | FileCheck %s --check-prefix=SIZE
// SIZE: bpf_ringbuf_reserve argument 2 (r2) must be a known constant size, is scalar(u0..255
// RUN: not ebpf-gpu-cc %t.8.o 2>&1 | FileCheck %s --check-prefix=OFFSET
// OFFSET: bpf_ringbuf_submit argument 1 (r1) must point to the start of the record, not offset 8 (offset(r1) == 0)
// RUN: not ebpf-gpu-cc %t.9.o 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: bpf_ringbuf_submit argument 1 (r1) must be a reserved ring buffer record, is a scalar
// RUN: not ebpf-gpu-cc %t.10.o 2>&1 | FileCheck %s --check-prefix=NOCHECK
// NOCHECK: bpf_ringbuf_discard argument 1 (r1) may be null: check the record of bpf_ringbuf_reserve first (not_null(r1))
// RUN: not ebpf-gpu-cc %t.11.o 2>&1 | FileCheck %s --check-prefix=TAIL
// TAIL: bpf_tail_call while a ring buffer record reserved at pc {{[0-9]+}} is neither submitted nor discarded (the reference would leak)
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-accepts.sh %t.1.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-accepts.sh %t.2.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.3.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.4.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.5.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.6.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.7.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.8.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.9.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.10.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.11.o %}

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 4096);
} events SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PROG_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u32);
} next SEC(".maps");

SEC("xdp") int prog(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *end = (void *)(long)ctx->data_end;
  __u64 *r = bpf_ringbuf_reserve(&events, 16, 0);
#if CASE == 1 // submitted or discarded on every path; a failed reservation needs neither
  if (!r)
    return XDP_PASS;
  r[0] = end - data;
  r[1] = 1;
  if (data + 20 > end) {
    bpf_ringbuf_discard(r, 0);
    return XDP_DROP;
  }
  bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
#elif CASE == 2 // the record's pointer spilled, moved, reloaded, then released
  volatile __u64 *saved = r;
  if (!saved)
    return XDP_PASS;
  __u64 *again = (__u64 *)saved;
  again[1] = 7;
  bpf_ringbuf_output(&events, &ctx, 0, 0);
  bpf_ringbuf_submit(again, 0);
#elif CASE == 3 // forgotten on one path
  if (!r)
    return XDP_PASS;
  r[0] = 1;
  if (data + 20 > end)
    return XDP_DROP;
  bpf_ringbuf_submit(r, 0);
#elif CASE == 4 // used before the null check
  r[0] = 1;
  if (r)
    bpf_ringbuf_submit(r, 0);
#elif CASE == 5 // used after its submission
  if (!r)
    return XDP_PASS;
  bpf_ringbuf_submit(r, 0);
  r[0] = 1;
#elif CASE == 6 // past its 16 bytes
  if (!r)
    return XDP_PASS;
  r[2] = 1;
  bpf_ringbuf_submit(r, 0);
#elif CASE == 7 // a size that is not a constant
  if (r)
    bpf_ringbuf_submit(r, 0);
  if (data + 1 > end)
    return XDP_PASS;
  __u8 *v = bpf_ringbuf_reserve(&events, *(__u8 *)data, 0);
  if (v)
    bpf_ringbuf_submit(v, 0);
#elif CASE == 8 // released through a pointer into its middle
  if (!r)
    return XDP_PASS;
  bpf_ringbuf_submit(r + 1, 0);
#elif CASE == 9 // released twice
  if (!r)
    return XDP_PASS;
  bpf_ringbuf_submit(r, 0);
  bpf_ringbuf_submit(r, 0);
#elif CASE == 10 // released before the null check
  bpf_ringbuf_discard(r, 0);
#elif CASE == 11 // a tail call while holding it
  if (!r)
    return XDP_PASS;
  bpf_tail_call(ctx, &next, 0);
  bpf_ringbuf_submit(r, 0);
#endif
  return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
