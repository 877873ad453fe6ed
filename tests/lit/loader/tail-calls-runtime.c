// Program arrays filled at run time, as user space fills them (`bpftool
// map update ... value pinned PROG`; Cilium's agent): `--map-set
// ARRAY:KEYHEX:@PROGRAM` (or a --map-file line of that form) puts a program
// of the object into a slot, by name. Host and GPU hold the program's id in
// the compiled set, the kernel its descriptor. The array starts empty: the
// entry falls through (PASS) until slots are given; then slot 0 answers TX
// and slot 1 DROP, and slot 2 stays empty. A name the object lacks, and a
// map that holds no programs, are refused with the programs it can hold.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 200 --seed 6
// RUN: ebpf-gpu-loader run %t.o --section entry --pcap %t.pcap | FileCheck %s --check-prefix=EMPTY
// EMPTY: XDP_PASS 200
// RUN: ebpf-gpu-loader run %t.o --section entry --pcap %t.pcap --verdicts %t.host.txt \
// RUN:   --map-set jumps:00000000:@to_tx --map-set jumps:01000000:@to_drop | FileCheck %s --check-prefix=FILLED
// FILLED-DAG: XDP_TX {{[1-9][0-9]*}}
// FILLED-DAG: XDP_DROP {{[1-9][0-9]*}}
// FILLED-DAG: XDP_PASS {{[1-9][0-9]*}}
// RUN: not ebpf-gpu-loader run %t.o --section entry --pcap %t.pcap --map-set jumps:00000000:@nowhere 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: program array 'jumps': 'nowhere' is not a program it can hold (the object's programs: entry, to_tx, to_drop)
// RUN: not ebpf-gpu-loader run %t.o --section entry --pcap %t.pcap --map-set counts:00000000:@to_tx 2>&1 | FileCheck %s --check-prefix=NOTPROG
// NOTPROG: map 'counts' does not hold maps or programs (@to_tx given)
// RUN: printf 'jumps:00000000:@to_tx\njumps:01000000:@to_drop\n' > %t.slots
// RUN: ebpf-gpu-cc %t.o --section entry -o %t.gpu.o
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.gpu.o --pcap %t.pcap --map-file %t.slots --verdicts %t.gpu.txt > /dev/null %}
// RUN: %if cuda-gpu %{ diff %t.host.txt %t.gpu.txt %}
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader --pcap %t.pcap \
// RUN:   --work %t.d %t.o:entry+%t.slots | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: entry: 200 packets, host and kernel agree
// `compare` takes the same slots (--map-set, --map-file), set on both sides
// after load; a name the object lacks is an error for that program.
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --section entry --pcap %t.pcap \
// RUN:   --map-file %t.slots | FileCheck %s --check-prefix=COMPARE %}
// COMPARE: entry: both: 200 packets, host and kernel agree
// RUN: %if kernel-bpf %{ not ebpf-gpu-loader compare %t.o --section entry --pcap %t.pcap \
// RUN:   --map-set jumps:02000000:@nowhere | FileCheck %s --check-prefix=COMPARE-BAD %}
// COMPARE-BAD: entry: error: host back end: --map-set: program array 'jumps': 'nowhere' is not a program it can hold
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_PROG_ARRAY);
  __uint(max_entries, 3);
  __type(key, __u32);
  __type(value, __u32);
} jumps SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 2);
  __type(key, __u32);
  __type(value, __u64);
} counts SEC(".maps");

static __always_inline int counted(__u32 k, int verdict) {
  __u64 *n = bpf_map_lookup_elem(&counts, &k);
  if (n)
    __sync_fetch_and_add(n, 1);
  return verdict;
}

SEC("xdp") int entry(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  if (data + 20 > end)
    return XDP_PASS;
  bpf_tail_call(ctx, &jumps, ((__u8 *)data)[19] % 3);
  return XDP_PASS;
}

SEC("xdp") int to_tx(struct xdp_md *ctx) { return counted(0, XDP_TX); }
SEC("xdp") int to_drop(struct xdp_md *ctx) { return counted(1, XDP_DROP); }

char _license[] SEC("license") = "GPL";
