// SPDX-License-Identifier: Apache-2.0
// The kfuncs bpf_dynptr_clone, bpf_dynptr_copy and bpf_dynptr_memset on
// XDP dynptrs at run time (issue 17), as the kernel's (kernel/bpf/
// helpers.c, Linux 6.18). Program `dynptr_copy` records each call's
// result in `res`, packet by packet the same for every packet of a length
// class: a clone (its size, its own adjust leaving the parent whole), a
// clone of a null dynptr (-EINVAL, the clone null), copies within the
// packet (overlapping both ways: memmove), past either end (-E2BIG),
// from or to a null dynptr (-EINVAL), of 0 bytes, memsets inside, at the
// end, past it (-E2BIG) and of a null dynptr (0 bytes: 0, else -E2BIG),
// bpf_dynptr_data (null for an XDP dynptr), copies and memsets of a
// length that follows the packet's (memmove over hundreds of bytes); then,
// the packet's head moved 14 bytes on (bpf_xdp_adjust_head) under the
// dynptr made before, whose size is still the longer one, the kernel's
// fragment path: bytes inside the dynptr but past the packet give no
// slice, so copy and memset go 256 bytes at a time through
// bpf_dynptr_read/_write and stop at the first chunk past the packet
// (-EINVAL, the chunks before it written: 537 of the 2,000 packets, those
// of 310 bytes or more). Those results differ by length:
// they go into the packet's first bytes. The packet leaves rewritten
// (XDP_TX) so that the output bytes show what the calls did.
// Host and kernel agree on every packet's verdict, bytes and the maps; the
// verifier's side: tests/lit/verifier/dynptr-clone.c.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 2000 --seed 9
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host --dump-maps %t.maps | FileCheck %s
// The 34 packets too short for the head to move 14 bytes on are aborted.
// CHECK: XDP_ABORTED 34
// CHECK: XDP_TX 1966
// RUN: FileCheck %s --check-prefix=RES < %t.maps
// RES: res[0] = 1
// RES-NEXT: res[1] = 4294967274
// RES-NEXT: res[2] = 1
// RES-NEXT: res[5] = 4294967289
// RES-NEXT: res[6] = 4294967289
// RES-NEXT: res[7] = 4294967274
// RES-NEXT: res[8] = 4294967274
// RES-NEXT: res[11] = 4294967289
// RES-NEXT: res[13] = 4294967289
// RES-NEXT: res[14] = 1
// RES-NEXT: res[15] = 1
// RES-NEXT: res[16] = 4294967289
// RES-NEXT: res[17] = 4294967289
// RES-NEXT: res[18] = 4294967274
// RES-NEXT: res[19] = 4294967289
// RUN: ebpf-gpu-cc %t.o --emit=ptx --target=sm_90 -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: ebpf-gpu-cc %t.o -o %t.gpu.o
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --pcap %t.pcap | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: dynptr_copy: both: 2000 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

extern int bpf_dynptr_from_xdp(struct xdp_md *xdp, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern __u32 bpf_dynptr_size(const struct bpf_dynptr *p) __ksym;
extern int bpf_dynptr_adjust(const struct bpf_dynptr *p, __u32 start, __u32 end) __ksym;
extern int bpf_dynptr_clone(const struct bpf_dynptr *p, struct bpf_dynptr *clone__uninit) __ksym;
extern int bpf_dynptr_copy(struct bpf_dynptr *dst_ptr, __u32 dst_off, struct bpf_dynptr *src_ptr,
                           __u32 src_off, __u32 size) __ksym;
extern int bpf_dynptr_memset(struct bpf_dynptr *p, __u32 offset, __u32 size, __u8 val) __ksym;

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 20);
  __type(key, __u32);
  __type(value, __u64);
} res SEC(".maps");

// Results, the last packet's in the dump (res[0] to res[15] the same for
// every packet long enough; res[16] to res[19], past the moved head, -E2BIG
// for the last one, which is shorter than 310 bytes); what depends on the
// length also goes into the packet's bytes.
static void put(__u32 k, __u64 v) {
  __u64 *p = bpf_map_lookup_elem(&res, &k);
  if (p)
    *p = v;
}

volatile __u32 big = 70000;

SEC("xdp") int dynptr_copy(struct xdp_md *ctx) {
  struct bpf_dynptr d, c, n, nc;
  bpf_dynptr_from_xdp(ctx, 0, &d);
  __u32 size = bpf_dynptr_size(&d);
  // A clone has the parent's size; adjusting it leaves the parent whole.
  int r = bpf_dynptr_clone(&d, &c);
  put(0, r == 0 && bpf_dynptr_size(&c) == size);
  bpf_dynptr_from_xdp(ctx, 1, &n); // null (flags)
  put(1, (__u32)bpf_dynptr_clone(&n, &nc));
  put(2, bpf_dynptr_adjust(&c, 14, size) == 0 && bpf_dynptr_size(&d) == size &&
             bpf_dynptr_size(&c) == size - 14);
  // Copies inside the packet: the clone's offset 0 is the packet's 14.
  put(3, (__u32)bpf_dynptr_copy(&d, 0, &c, 0, 12));  // MACs <- bytes 14..25
  put(4, (__u32)bpf_dynptr_copy(&c, 2, &c, 0, 20));  // overlapping, forwards
  put(5, (__u32)bpf_dynptr_copy(&d, size - 4, &d, 0, 8)); // past dst's end
  put(6, (__u32)bpf_dynptr_copy(&d, 0, &c, size - 14, 1)); // past src's end
  put(7, (__u32)bpf_dynptr_copy(&n, 0, &d, 0, 4));   // to a null dynptr
  put(8, (__u32)bpf_dynptr_copy(&d, 0, &n, 0, 4));   // from a null dynptr
  put(9, (__u32)bpf_dynptr_copy(&d, size, &d, 0, 0)); // 0 bytes at the end
  put(10, (__u32)bpf_dynptr_memset(&d, 30, 8, 0xab));
  put(11, (__u32)bpf_dynptr_memset(&d, size - 2, 4, 1)); // past the end
  put(12, (__u32)bpf_dynptr_memset(&n, 0, 0, 1));        // null, 0 bytes
  put(13, (__u32)bpf_dynptr_memset(&n, 0, 1, 1));        // null
  put(14, bpf_dynptr_memset(&d, size - 3, 3, 0xcd) == 0 &&
              bpf_dynptr_copy(&d, 40, &d, big, 1) == -7);
  bpf_dynptr_copy(&c, 30, &c, 26, 10); // overlapping, backwards
  put(15, bpf_dynptr_data(&d, 0, 4) == NULL);
  // As long as the packet allows: hundreds of bytes, overlapping.
  bpf_dynptr_copy(&c, 40, &c, 44, size - 14 - 44);
  bpf_dynptr_memset(&d, size / 2, size / 8, 0x5a);
  // The head moves on: d's last 14 bytes are past the packet.
  if (bpf_xdp_adjust_head(ctx, 14))
    return XDP_ABORTED;
  __u32 moved[4];
  moved[0] = bpf_dynptr_copy(&d, size - 310, &d, size - 300, 300);
  moved[1] = bpf_dynptr_memset(&d, size - 300, 300, 0x22);
  moved[2] = bpf_dynptr_memset(&d, size - 20, 20, 0x11);
  moved[3] = bpf_dynptr_copy(&d, 0, &d, size - 300, 300);
  put(16, moved[0]);
  put(17, moved[1]);
  put(18, moved[2]);
  put(19, moved[3]);
  bpf_dynptr_write(&d, 0, moved, sizeof(moved), 0);
  return XDP_TX;
}
