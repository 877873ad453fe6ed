// SPDX-License-Identifier: Apache-2.0
//
// Global data sections that end in arrays, for resizing between open and
// load (libbpf's bpf_map__set_value_size on global data):
// global-data-resize.test grows .bss and .data with the C API, and the
// unit tests (ObjectTest.cpp) read the resized sections' BTF. The program
// counts in `nslots` slots where .bss declares 2, libbpf's idiom: a
// `const volatile` of .rodata that user space sets before load with the
// resize (the verifier takes a .rodata value as a constant, as the kernel's
// does for a frozen .rodata). Set to 8, the verifier accepts it only once
// .bss has room for 8. .data.notarr ends in a scalar: its BTF cannot follow
// a resize.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

const volatile __u32 nslots = 2;

__u64 hits;
__u64 slots[2];

__u32 gen = 7;
__u16 marks[3] = {1, 2, 3};

__u32 first SEC(".data.notarr") = 5;
__u64 last SEC(".data.notarr") = 6;

SEC("xdp") int global_resize(struct xdp_md *ctx) {
  __u8 *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  if (data + 1 > end)
    return XDP_ABORTED;
  __u32 i = data[0];
  hits++;
  if (i < nslots)
    slots[i] += 1;
  marks[0] = (__u16)gen;
  last += first;
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
