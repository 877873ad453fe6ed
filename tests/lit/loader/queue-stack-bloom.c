// Queue, stack and bloom filter maps (types 22, 23, 30) with
// bpf_map_push_elem, bpf_map_pop_elem and bpf_map_peek_elem (helpers 87,
// 88, 89), as the kernel's: a push on a full queue or stack fails with
// -E2BIG (-7), or with BPF_EXIST drops the oldest value (the queue's front,
// the stack's bottom) to make room; BPF_NOEXIST and unknown flags are
// -EINVAL (-22); a pop or peek of an empty map fails with -ENOENT (-2) and
// zeroes the buffer; a bloom filter finds every value pushed, and with
// BPF_F_ZERO_SEED answers as the kernel's for every value (the same hash,
// the same bit array), absent ones included; a push with flags is -EINVAL.
// Every packet writes the return codes and values it got over its first
// 48 bytes and goes out (XDP_TX): host and kernel agree on every byte, on
// the verdicts and on the maps at the end (a queue's or stack's values
// oldest first: q<0> is the next pop, st<0> the last), with and without
// values pushed before the run (--map-file: MAP::VALUEHEX, no key).
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 40 --seed 22
// RUN: printf 'q::aa000000\nq::bb000000\nst::cc000000\nbf::01000000\n' > %t.entries
// RUN: ebpf-gpu-loader run %t.o --section qsb --pcap %t.pcap --backend host --dump-maps %t.maps | FileCheck %s
// CHECK: XDP_TX 40
// RUN: FileCheck %s --check-prefix=MAPS < %t.maps
// At the end (the kernel's maps too): the queue holds 37 and 38, the
// stack 34 and 37 (oldest first); bloom filters list nothing.
// MAPS-NOT: bf
// MAPS: q<0> = 25000000
// MAPS-NEXT: q<1> = 26000000
// MAPS-NEXT: seq[0] = 28000000
// MAPS-NEXT: st<0> = 22000000
// MAPS-NEXT: st<1> = 25000000
// MAPS-NOT: {{.}}
// RUN: ebpf-gpu-loader run %t.o --section qsb --pcap %t.pcap --backend host --map-file %t.entries --dump-maps %t.entries.maps | FileCheck %s
// A key where there is none: one message.
// RUN: printf 'q:00000000:01000000\n' > %t.bad
// RUN: not ebpf-gpu-loader run %t.o --section qsb --pcap %t.pcap --backend host --map-file %t.bad 2>&1 | FileCheck %s --check-prefix=BADKEY
// BADKEY: map 'q': takes 0-byte keys and 4-byte values, not 4 and 4
// RUN: ebpf-gpu-cc %t.o --section qsb -o %t.gpu.o
// RUN: ebpf-gpu-cc %t.o --section qsb --emit=ptx --target=sm_90 -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// The GPU, one packet a batch (the program depends on the packets' order):
// the host's verdicts and maps.
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.gpu.o --pcap %t.pcap --batch 1 --dump-maps %t.gpu.maps | FileCheck %s %}
// RUN: %if cuda-gpu %{ diff %t.maps %t.gpu.maps %}
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader \
// RUN:   --pcap %t.pcap --work %t.d %t.o:qsb %t.o:qsb+%t.entries | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: qsb: 40 packets, host and kernel agree
// KERNEL-NEXT: qsb: 40 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_QUEUE);
  __uint(max_entries, 3);
  __type(value, __u32);
} q SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_STACK);
  __uint(max_entries, 3);
  __type(value, __u32);
} st SEC(".maps");

// Few bits (16 entries, 3 hashes: 64 bits): absent values are often
// reported present, the same ones as by the kernel's.
struct {
  __uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
  __uint(max_entries, 16);
  __uint(map_extra, 3);
  __uint(map_flags, BPF_F_ZERO_SEED);
  __type(value, __u32);
} bf SEC(".maps");

// A 6-byte value: the hash's byte-wise tail (the kernel's jhash, not jhash2).
struct odd {
  __u8 b[6];
};
struct {
  __uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
  __uint(max_entries, 100);
  __uint(map_flags, BPF_F_ZERO_SEED);
  __type(value, struct odd);
} bf6 SEC(".maps");

// A random seed (the kernel's): only what a seed cannot change is
// compared, that a pushed value is found.
struct {
  __uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
  __uint(max_entries, 8);
  __type(value, __u64);
} seeded SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u32);
} seq SEC(".maps");

SEC("xdp") int qsb(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  __s32 *out = data;
  if ((void *)(out + 12) > end)
    return XDP_PASS;
  __u32 zero = 0;
  __u32 *n = bpf_map_lookup_elem(&seq, &zero);
  if (!n)
    return XDP_ABORTED;
  __u32 v = *n;
  *n = v + 1;
  // Push: plain, BPF_EXIST every third, BPF_NOEXIST (refused) every seventh.
  __u64 flags = v % 3 == 2 ? BPF_EXIST : 0;
  out[0] = bpf_map_push_elem(&q, &v, flags);
  out[1] = bpf_map_push_elem(&st, &v, flags);
  if (v % 7 == 6)
    out[2] = bpf_map_push_elem(&q, &v, BPF_NOEXIST) * 100 + bpf_map_push_elem(&st, &v, 5);
  // Pop every third packet (so the maps fill up), peek always.
  __u32 got = 0xdeadbeef;
  if (v % 3 == 0) {
    out[3] = bpf_map_pop_elem(&q, &got);
    out[4] = got;
    got = 0xdeadbeef;
    out[5] = bpf_map_pop_elem(&st, &got);
    out[6] = got;
  }
  got = 0xdeadbeef;
  out[7] = bpf_map_peek_elem(&st, &got) * 1000 + got;
  // Empty the queue at packet 20: the last pop fails, zeroing its buffer.
  if (v == 20) {
    __s32 rc = 0;
    for (int i = 0; i < 4; i++) {
      got = 0xdeadbeef;
      rc = bpf_map_pop_elem(&q, &got);
    }
    out[8] = rc;
    out[9] = got;
    got = 0xdeadbeef;
    out[10] = bpf_map_peek_elem(&q, &got) * 1000 + got;
  }
  // Bloom: push the even packets' numbers times 3; ask for this one's and
  // the one before's (absent when odd, but maybe reported present).
  __u32 x = v * 3, y = (v - 1) * 3;
  __s32 bloom = 0;
  if (v % 2 == 0)
    bloom = bpf_map_push_elem(&bf, &x, 0);
  bloom = bloom * 10 + bpf_map_peek_elem(&bf, &x);
  bloom = bloom * 10 + bpf_map_peek_elem(&bf, &y);
  bloom = bloom * 10 + bpf_map_push_elem(&bf, &x, BPF_EXIST);
  struct odd o = {{(__u8)v, 1, 2, 3, 4, 5}}, p = {{(__u8)(v + 1), 1, 2, 3, 4, 5}};
  if (v % 2)
    bpf_map_push_elem(&bf6, &o, 0);
  bloom = bloom * 10 + bpf_map_peek_elem(&bf6, &o);
  bloom = bloom * 10 + bpf_map_peek_elem(&bf6, &p);
  out[11] = bloom;
  __u64 big = (__u64)v << 40 | 77;
  bpf_map_push_elem(&seeded, &big, 0);
  if (bpf_map_peek_elem(&seeded, &big))
    return XDP_DROP;
  return XDP_TX;
}
