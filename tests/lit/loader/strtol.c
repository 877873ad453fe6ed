// bpf_strtol (helper 105) and bpf_strtoul (106), the kernel's: leading
// white space (its isspace, Latin-1's 0xa0 included) and one '-' skipped,
// the base from the flags (0 reads 0x as 16 and a leading 0 as 8), at most
// 63 bytes read; the bytes read, or -EINVAL (22) / -ERANGE (34), the result
// zeroed on every error. Program `cases`: fixed strings, each case's four
// answers (strtol's return and result, strtoul's) at 4 * case in `out`.
// Program `strtox`: strings of 1 to 23 bytes drawn from digits, letters,
// signs, white space and NUL by a generator the packet seeds, with random
// bases and flags; the four answers overwrite the first 32 bytes of each
// packet of 48 bytes or more (1,954 of these; the 46 ARP requests pass).
// Host = kernel on both, packet by packet and map by map.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 2000 --seed 21
// RUN: ebpf-gpu-loader run %t.o --section cases --pcap %t.pcap --backend host --dump-maps %t.maps | FileCheck %s
// CHECK: XDP_PASS 2000
// RUN: FileCheck %s --check-prefix=MAPS < %t.maps
// "  -0x1A", base 0: -26 from 7 bytes; strtoul refuses the sign.
// MAPS: out[0] = 7
// MAPS-NEXT: out[1] = 18446744073709551590
// MAPS-NEXT: out[2] = 18446744073709551594
// "0777", base 0: octal.
// MAPS-NEXT: out[4] = 4
// MAPS-NEXT: out[5] = 511
// MAPS-NEXT: out[6] = 4
// MAPS-NEXT: out[7] = 511
// "0x", base 16: no digit after the prefix, the result zeroed (was 77).
// MAPS-NEXT: out[8] = 18446744073709551594
// MAPS-NEXT: out[10] = 18446744073709551594
// "0x", base 0: the 0 alone, in octal.
// MAPS-NEXT: out[12] = 1
// MAPS-NEXT: out[14] = 1
// "18446744073709551615": strtol -ERANGE, strtoul the whole u64.
// MAPS-NEXT: out[16] = 18446744073709551582
// MAPS-NEXT: out[18] = 20
// MAPS-NEXT: out[19] = 18446744073709551615
// "-9223372036854775808": strtol's least value.
// MAPS-NEXT: out[20] = 20
// MAPS-NEXT: out[21] = 9223372036854775808
// MAPS-NEXT: out[22] = 18446744073709551594
// Base 2, and a flag above the base: -EINVAL.
// MAPS-NEXT: out[24] = 18446744073709551594
// MAPS-NEXT: out[26] = 18446744073709551594
// MAPS-NEXT: out[28] = 18446744073709551594
// MAPS-NEXT: out[30] = 18446744073709551594
// 4 spaces, then 70 digits "0...01": 63 of them read, all zeros.
// MAPS-NEXT: out[32] = 67
// MAPS-NEXT: out[34] = 67
// 0xa0 then "42" in base 8: 34 from 3 bytes; the result in a map value.
// MAPS-NEXT: out[36] = 3
// MAPS-NEXT: out[37] = 34
// MAPS-NEXT: out[38] = 3
// MAPS-NEXT: out[39] = 34
// "+5" (no '+' is taken) and "   " (nothing after the spaces): -EINVAL.
// MAPS-NEXT: out[40] = 18446744073709551594
// MAPS-NEXT: out[42] = 18446744073709551594
// MAPS-NEXT: out[44] = 18446744073709551594
// MAPS-NEXT: out[46] = 18446744073709551594
// RUN: ebpf-gpu-loader run %t.o --section strtox --pcap %t.pcap --backend host | FileCheck %s --check-prefix=GEN
// GEN: XDP_PASS 46
// GEN: XDP_TX 1954
// RUN: ebpf-gpu-cc %t.o --section strtox --emit=ptx --target=sm_90 -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: ebpf-gpu-cc %t.o --section cases -o %t.cases.gpu.o
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.cases.gpu.o --pcap %t.pcap --batch 1 --dump-maps %t.gpu.maps | FileCheck %s %}
// RUN: %if cuda-gpu %{ diff %t.maps %t.gpu.maps %}
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader \
// RUN:   --pcap %t.pcap --work %t.d %t.o:cases %t.o:strtox | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: cases: 2000 packets, host and kernel agree
// KERNEL: strtox: 2000 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 48);
  __type(key, __u32);
  __type(value, __s64);
} out SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} scratch SEC(".maps");

const char s_hex[] = "  -0x1A";
const char s_oct[] = "0777";
const char s_0x[] = "0x";
const char s_umax[] = "18446744073709551615";
const char s_smin[] = "-9223372036854775808";
const char s_bin[] = "12";
const char s_long[] = "    0000000000000000000000000000000000000000000000000000000000000000000001";
const char s_nbsp[] = "\xa0"
                      "42";
const char s_plus[] = "+5";
const char s_spaces[] = "   ";

static __always_inline void put(__u32 k, __s64 v) {
  bpf_map_update_elem(&out, &k, &v, BPF_ANY);
}

// Case c: strtol's and strtoul's answers over a copy of `s` (its bytes
// before the NUL) on the stack, the results preset to 77.
#define CASE(c, s, flags)                                                                          \
  do {                                                                                             \
    char buf[sizeof(s) - 1];                                                                       \
    __builtin_memcpy(buf, s, sizeof(buf));                                                         \
    long l = 77;                                                                                   \
    unsigned long ul = 77;                                                                         \
    put(4 * (c), bpf_strtol(buf, sizeof(buf), flags, &l));                                         \
    put(4 * (c) + 1, l);                                                                           \
    put(4 * (c) + 2, bpf_strtoul(buf, sizeof(buf), flags, &ul));                                   \
    put(4 * (c) + 3, (__s64)ul);                                                                   \
  } while (0)

SEC("xdp") int cases(struct xdp_md *ctx) {
  CASE(0, s_hex, 0);
  CASE(1, s_oct, 0);
  CASE(2, s_0x, 16);
  CASE(3, s_0x, 0);
  CASE(4, s_umax, 10);
  CASE(5, s_smin, 10);
  CASE(6, s_bin, 2);
  CASE(7, s_bin, 0x20 | 10);
  CASE(8, s_long, 10);
  // The results in a map value.
  __u32 k = 0;
  __u64 *v = bpf_map_lookup_elem(&scratch, &k);
  if (!v)
    return XDP_ABORTED;
  char nbsp[3];
  __builtin_memcpy(nbsp, s_nbsp, 3);
  put(36, bpf_strtol(nbsp, 3, 8, (long *)v));
  put(37, (__s64)*v);
  put(38, bpf_strtoul(nbsp, 3, 0x8, v));
  put(39, (__s64)*v);
  CASE(10, s_plus, 0);
  CASE(11, s_spaces, 0);
  return XDP_PASS;
}

// Digits weigh half; then x, X, the signs, white space, 0xa0, z and NUL.
const char alphabet[32] = "0123456789abcdefxX -+\t\n\v\f\r\xa0z0F9x";
const __u64 flag_sets[8] = {0, 8, 10, 16, 0, 16, 2, 0x20 | 16};

SEC("xdp") int strtox(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  if (data + 48 > end)
    return XDP_PASS;
  __u64 *w = data;
  __u64 x = w[3] ^ (w[4] << 7) ^ w[5];
  char s[24];
  for (int i = 0; i < 24; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    s[i] = alphabet[x >> 59];
  }
  x = x * 6364136223846793005ull + 1442695040888963407ull;
  __u32 len = ((x >> 33) & 15) + ((x >> 40) & 7) + 1; // the kernel bounds no %
  __u64 flags = flag_sets[(x >> 20) & 7];
  long l = 0;
  unsigned long ul = 0;
  w[0] = bpf_strtol(s, len, flags, &l);
  w[1] = l;
  w[2] = bpf_strtoul(s, len, flags, &ul);
  w[3] = ul;
  return XDP_TX;
}
