// bpf_snprintf (helper 165): the kernel's conversions (%d %i %u %x %X with
// l and ll, flags and widths, %c, %s, %pks, %pI4 %pi4 %pI6 %pi6, %%), the
// length the whole string needs with its NUL returned, the output cut to
// str_size bytes and NUL-terminated, the kernel's 512-byte buffer that
// strings share (cut, then -ENOSPC), more than 12 arguments -EINVAL, str
// NULL with size 0 (the length alone). Results in a map (return value and
// the buffer); every IPv4 packet gets its addresses written over its
// payload as %pI4 and %pi4 print them. Host = kernel on maps, verdicts and
// packets; the GPU module through ptxas.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 40 --seed 21
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host --dump-maps %t.maps | FileCheck %s
// CHECK: XDP_ABORTED 0
// RUN: %python %S/Inputs/snprintf-results.py %t.maps | FileCheck %s --check-prefix=MAPS
// MAPS: out[0] 35 '-7 -7 4294967289 fffffff9 FFFFFFF9'
// MAPS-NEXT: out[1] 62 '-7 18446744073709551609 fffffffffffffff9 -9223372036854'
// MAPS-NEXT: out[2] 54 '|   42|42   |00042|+42| 42|-0042|   2a|0000002A|-42 |'
// MAPS-NEXT: out[3] 14 '|  x|y  |z|%|'
// MAPS-NEXT: out[4] 34 '|eth0|    eth0|eth0    |hello|hi|'
// MAPS-NEXT: out[5] 65 '10.1.2.3 010.001.002.003 2001:0db8:0000:0000:0000:0000:'
// MAPS-NEXT: out[6] 33 '20010db8000000000000000000000001'
// MAPS-NEXT: out[7] 30 'this is a lon'
// MAPS-NEXT: out[8] 29 ''
// MAPS-NEXT: out[9] -22 'untouched'
// MAPS-NEXT: out[10] -28 'untouched'
// MAPS-NEXT: out[11] 512 'The quick brown fox jumps over the lazy dog; 0123.The q'
// MAPS-NEXT: out[12] 13 '[10.1.2.3] -'
// MAPS-NEXT: out[13] 6 'hel'
// RUN: ebpf-gpu-cc %t.o --emit=ptx --target=sm_90 -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: ebpf-gpu-cc %t.o -o %t.gpu.o
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.gpu.o --pcap %t.pcap --dump-maps %t.gpu.maps | FileCheck %s %}
// RUN: %if cuda-gpu %{ diff %t.maps %t.gpu.maps %}
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader \
// RUN:   --pcap %t.pcap --work %t.d %t.o:fmt | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: fmt: 40 packets, host and kernel agree
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

struct res {
  __s64 ret;
  char buf[56];
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 14);
  __type(key, __u32);
  __type(value, struct res);
} out SEC(".maps");

const char hello[] = "hello";
const char untouched[] = "untouched";
const __u8 v6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
const char hi[] = "hi";
#define S50 "The quick brown fox jumps over the lazy dog; 0123."
const char along[301] = S50 S50 S50 S50 S50 S50;

static __always_inline struct res *slot(__u32 k) { return bpf_map_lookup_elem(&out, &k); }

// A pointer clang cannot fold into a constant array of .rodata (whose
// relocations nothing applies): the u64s are stored at run time.
#define P(x)                                                                                       \
  ({                                                                                               \
    __u64 _v = (__u64)(x);                                                                         \
    asm volatile("" : "+r"(_v));                                                                   \
    _v;                                                                                            \
  })

#define FMT(k, size, fmt, ...)                                                                     \
  do {                                                                                             \
    struct res *r = slot(k);                                                                       \
    if (!r)                                                                                        \
      return XDP_ABORTED;                                                                          \
    __builtin_memcpy(r->buf, untouched, sizeof(untouched));                                                     \
    static const char f[] = fmt;                                                                   \
    __u64 a[] = {__VA_ARGS__};                                                                     \
    r->ret = bpf_snprintf(r->buf, size, f, a, sizeof(a));                                          \
  } while (0)

SEC("xdp") int fmt(struct xdp_md *ctx) {
  __s32 m7 = -7;
  FMT(0, 56, "%d %i %u %x %X", (__u32)m7, (__u32)m7, (__u32)m7, (__u32)m7, (__u32)m7);
  FMT(1, 56, "%ld %llu %lx %lld", P(-7), P(-7), P(-7), P(0x8000000000000000ull));
  FMT(2, 56, "|%5d|%-5d|%05d|%+d|% d|%05d|%5x|%08X|%-4d|", 42, 42, 42, 42, 42, -42, 42, 42, -42);
  FMT(3, 56, "|%3c|%-3c|%c|%%|", 'x', 'y', 'z');
  char name[8] = "eth0";
  FMT(4, 56, "|%s|%8s|%-8s|%pks|%s|", P(name), P(name), P(name), P(hello), P(hi));
  __u8 v4[4] = {10, 1, 2, 3};
  // Cut to 56 bytes: the length of the whole string returned.
  FMT(5, 56, "%pI4 %pi4 %pI6", P(v4), P(v4), P(v6));
  FMT(6, 56, "%pi6", P(v6));
  FMT(7, 14, "this is a longer line than %d", 14);
  // No buffer: the length alone.
  {
    struct res *r = slot(8);
    if (!r)
      return XDP_ABORTED;
    static const char f[] = "this is a longer line than %d";
    __u64 a[] = {0};
    r->ret = bpf_snprintf(0, 0, f, a, sizeof(a));
  }
  // 13 arguments: more than the kernel's 12 (-EINVAL), the buffer left.
  FMT(9, 56, "%d", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13);
  // Three 300-byte strings: the second is cut to what is left of the
  // 512-byte buffer, the third finds none (-ENOSPC).
  FMT(10, 56, "%s%s%s", P(along), P(along), P(along));
  FMT(11, 56, "%s|%s", P(along), P(along));
  // What follows %pI4 is skipped up to a letter or digit's end.
  FMT(12, 56, "[%pI4abc] -", P(v4));
  // Once the output is full, %pks adds nothing to the length.
  FMT(13, 4, "%s%pks", P(hello), P(hi));

  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  struct iphdr *ip = data + sizeof(*eth);
  char *payload = data + sizeof(*eth) + sizeof(*ip);
  if (payload + 40 > (char *)end || eth->h_proto != bpf_htons(ETH_P_IP))
    return XDP_PASS;
  char line[40] = {};
  __u64 a[] = {(__u64)&ip->saddr, (__u64)&ip->daddr};
  static const char f[] = "%pI4>%pi4";
  long n = bpf_snprintf(line, sizeof(line), f, a, sizeof(a));
  __builtin_memcpy(payload, line, sizeof(line));
  return n > 24 ? XDP_TX : XDP_DROP;
}
