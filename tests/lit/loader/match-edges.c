// SPDX-License-Identifier: Apache-2.0
// ebpf_gpu_match's results at the edges (docs/KFUNCS.md), per packet into
// an array: the scan from offset 0, from the packet's length (nothing to
// scan: -ENOENT), from past it (-EINVAL), from a variable offset the
// verifier does not bound; a match ending first wins over a lower id
// ending later, and of matches ending at one byte the lowest id (a rule
// that is a suffix of another, a duplicate under a lower id). The sample's
// run against a reference: tests/lit/loader/ids-match.test.
// RUN: %clang-bpf -I%src/api/include -c %s -o %t.o
// RUN: printf 'id:9 needle\nid:5 edle\nid:7 needle\nid:3 zzzzzzzzzz\nid:1 ed\n# AB:\nid:2 |41 42|\n' > %t.rules
// RUN: %python -c "import struct,sys; f=open(sys.argv[1],'wb'); f.write(struct.pack('<IHHiIII',0xa1b2c3d4,2,4,0,0,65535,1)); pk=[b'xxneedlexx', b'AB', b'nothing here', b'xxxxxxxxxx' + b'z'*10]; [f.write(struct.pack('<IIII',i,0,len(p),len(p))+p) for i,p in enumerate(pk)]" %t.pcap
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host --map-set rules:@%t.rules --dump-maps %t.maps
// RUN: FileCheck %s < %t.maps
// Packet 0 "xxneedlexx": "ed" (id 1) ends at byte 6, before needle and edle
// at byte 8; from the length -ENOENT, past it -EINVAL; from offset 4
// ("edlexx") "ed" still ends first.
// CHECK: res[0] = 1
// CHECK-NEXT: res[1] = 18446744073709551614
// CHECK-NEXT: res[2] = 18446744073709551594
// CHECK-NEXT: res[3] = 1
// Packet 1 "AB": the hex rule.
// CHECK-NEXT: res[4] = 2
// CHECK-NEXT: res[5] = 18446744073709551614
// CHECK-NEXT: res[6] = 18446744073709551594
// CHECK-NEXT: res[7] = 18446744073709551614
// Packet 2: nothing matches.
// CHECK-NEXT: res[8] = 18446744073709551614
// CHECK-NEXT: res[9] = 18446744073709551614
// CHECK-NEXT: res[10] = 18446744073709551594
// CHECK-NEXT: res[11] = 18446744073709551614
// Packet 3: the ten z's end at its last byte.
// CHECK-NEXT: res[12] = 3
// CHECK-NEXT: res[13] = 18446744073709551614
// CHECK-NEXT: res[14] = 18446744073709551594
// CHECK-NEXT: res[15] = 3
// Without "ed": "edle" (5) and "needle" (7, 9) end at one byte: the lowest.
// RUN: printf 'id:9 needle\nid:5 edle\nid:7 needle\n' > %t.2.rules
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host --map-set rules:@%t.2.rules --dump-maps %t.2.maps
// RUN: FileCheck %s --check-prefix=SAME-END < %t.2.maps
// SAME-END: res[0] = 5

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include <ebpf-gpu/kfuncs.h>

struct {
  __uint(type, BPF_MAP_TYPE_EBPF_GPU_PATTERNS);
  __uint(max_entries, 4096);
} rules SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 16);
  __type(key, __u32);
  __type(value, __s64);
} res SEC(".maps");

static __always_inline void put(__u32 k, __s64 v) {
  bpf_map_update_elem(&res, &k, &v, BPF_ANY);
}

SEC("xdp")
int match_edges(struct xdp_md *ctx) {
  __u32 len = ctx->data_end - ctx->data;
  // Each packet's results at 4 * its index, found from its length.
  __u32 i = len == 10 ? 0 : len == 2 ? 4 : len == 12 ? 8 : len == 20 ? 12 : 16;
  if (i > 12)
    return XDP_ABORTED;
  put(i, ebpf_gpu_match(ctx, 0, &rules));
  put(i + 1, ebpf_gpu_match(ctx, len, &rules));
  put(i + 2, ebpf_gpu_match(ctx, len + 1, &rules));
  put(i + 3, ebpf_gpu_match(ctx, len > 4 ? 4 : len, &rules));
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
