// bpf_strncmp (helper 182): strncmp(s1, s2, s1_sz) as the kernel's, -1, 0
// or 1, bytes compared as unsigned; s2 a NUL-terminated string of .rodata
// (the verifier's conditions: tests/lit/verifier/strncmp.c), s1 on the
// stack or in a map value. Results are stored plus 100 (a dump leaves out
// zeroes); host and kernel agree on them and on every packet's verdict
// (the packet's bytes, copied to the stack, against a string).
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 30 --seed 14
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host --dump-maps %t.maps | FileCheck %s
// CHECK: XDP_ABORTED 0
// RUN: FileCheck %s --check-prefix=MAPS < %t.maps
// MAPS: res[0] = 100
// MAPS-NEXT: res[1] = 101
// MAPS-NEXT: res[2] = 99
// MAPS-NEXT: res[3] = 100
// MAPS-NEXT: res[4] = 101
// MAPS-NEXT: res[5] = 100
// MAPS-NEXT: res[6] = 101
// MAPS-NEXT: res[7] = 101
// MAPS-NEXT: res[8] = 100
// MAPS-NEXT: res[9] = 101
// RUN: ebpf-gpu-cc %t.o --emit=ptx --target=sm_90 -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: ebpf-gpu-cc %t.o -o %t.gpu.o
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.gpu.o --pcap %t.pcap --dump-maps %t.gpu.maps | FileCheck %s %}
// RUN: %if cuda-gpu %{ diff %t.maps %t.gpu.maps %}
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader \
// RUN:   --pcap %t.pcap --work %t.d %t.o:cmp | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: cmp: 30 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 10);
  __type(key, __u32);
  __type(value, __s64);
} res SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, char[8]);
} bufs SEC(".maps");

const char word[8] = "abcdefg";
const char shorter[4] = "abc";
const char empty[1] = "";

static __always_inline void put(__u32 k, long r) {
  __s64 v = r + 100;
  bpf_map_update_elem(&res, &k, &v, BPF_ANY);
}

SEC("xdp") int cmp(struct xdp_md *ctx) {
  char s1[8] = "abcdefg";
  put(0, bpf_strncmp(s1, sizeof(s1), word));
  s1[3] = 'x';
  put(1, bpf_strncmp(s1, sizeof(s1), word));
  s1[3] = 'a';
  put(2, bpf_strncmp(s1, sizeof(s1), word));
  // Only the first s1_sz bytes count.
  put(3, bpf_strncmp(s1, 3, word));
  put(4, bpf_strncmp(s1, sizeof(s1), shorter));
  s1[3] = 0;
  s1[2] = 'c';
  // Both end at the NUL: what follows it does not count.
  put(5, bpf_strncmp(s1, sizeof(s1), shorter));
  // Unsigned: 0xff is above 'a'.
  s1[0] = (char)0xff;
  put(6, bpf_strncmp(s1, sizeof(s1), word));
  put(7, bpf_strncmp(s1, sizeof(s1), empty));
  // s1 in a map value.
  __u32 k = 0;
  char *b = bpf_map_lookup_elem(&bufs, &k);
  if (!b)
    return XDP_ABORTED;
  __builtin_memcpy(b, "abc\0zzzz", 8);
  put(8, bpf_strncmp(b, 8, shorter));
  put(9, bpf_strncmp(b, 1, empty));
  // The packet's first 8 bytes (copied) against the word: the verdict.
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  if (data + 8 > end)
    return XDP_PASS;
  char p[8];
  __builtin_memcpy(p, data, 8);
  long r = bpf_strncmp(p, sizeof(p), word);
  return r < 0 ? XDP_DROP : r > 0 ? XDP_PASS : XDP_TX;
}
