// bpf_ringbuf_query (helper 134): the bytes in the ring (BPF_RB_AVAIL_DATA,
// headers included: a 16-byte record takes 24), its size, the reader's and
// the writers' positions, 0 for other flags. Each packet writes a record
// and asks before and after; it passes where the answers hold together
// (writers = reader + bytes in use, its own record counted, the size the
// map's), else drops, and stores the last answers. The reader takes the
// ring after the run, or every --batch packets (kernel) and after each
// launch (GPU): the reader's position then moves, by whole records.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 30 --seed 2
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host --dump-maps %t.maps | FileCheck %s
// CHECK: XDP_DROP 0
// CHECK: XDP_PASS 30
// RUN: FileCheck %s --check-prefix=MAPS < %t.maps
// The last packet: 29 records before its own, then 30; nothing taken.
// MAPS: out[0] = 696
// MAPS-NEXT: out[1] = 720
// MAPS-NEXT: out[2] = 4096
// MAPS-NEXT: out[4] = 720
// RUN: ebpf-gpu-cc %t.o -o %t.gpu.o
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.gpu.o --pcap %t.pcap --batch 10 --dump-maps %t.gpu.maps | FileCheck %s %}
// RUN: %if cuda-gpu %{ FileCheck %s --check-prefix=BATCHES < %t.gpu.maps %}
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader \
// RUN:   --pcap %t.pcap --work %t.d %t.o:query | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: query: 30 packets, 30 event records, host and kernel agree
// Batches of 10 on the kernel: the reader took 20 records (480 bytes)
// before the last batch, whose last packet saw 10 in the ring.
// RUN: %if kernel-bpf %{ ebpf-gpu-loader run %t.o --pcap %t.pcap --backend kernel --batch 10 --dump-maps %t.kmaps | FileCheck %s %}
// RUN: %if kernel-bpf %{ FileCheck %s --check-prefix=BATCHES < %t.kmaps %}
// RUN: %if kernel-bpf %{ FileCheck %s --check-prefix=KBATCHES < %t.kmaps %}
// BATCHES: out[2] = 4096
// BATCHES-NEXT: out[3] = 480
// KBATCHES: out[0] = 216
// KBATCHES-NEXT: out[1] = 240
// KBATCHES-NEXT: out[2] = 4096
// KBATCHES-NEXT: out[3] = 480
// KBATCHES-NEXT: out[4] = 720
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 4096);
} ring SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 8);
  __type(key, __u32);
  __type(value, __u64);
} out SEC(".maps");

static __always_inline void put(__u32 k, __u64 v) {
  bpf_map_update_elem(&out, &k, &v, BPF_ANY);
}

SEC("xdp") int query(struct xdp_md *ctx) {
  __u64 rec[2] = {ctx->rx_queue_index, 0x1122334455667788ull};
  __u64 before = bpf_ringbuf_query(&ring, BPF_RB_AVAIL_DATA);
  long rc = bpf_ringbuf_output(&ring, rec, sizeof(rec), 0);
  __u64 avail = bpf_ringbuf_query(&ring, BPF_RB_AVAIL_DATA);
  __u64 size = bpf_ringbuf_query(&ring, BPF_RB_RING_SIZE);
  __u64 cons = bpf_ringbuf_query(&ring, BPF_RB_CONS_POS);
  __u64 prod = bpf_ringbuf_query(&ring, BPF_RB_PROD_POS);
  __u64 other = bpf_ringbuf_query(&ring, 7);
  put(0, before);
  put(1, avail);
  put(2, size);
  put(3, cons);
  put(4, prod);
  put(5, other);
  put(6, rc);
  if (rc || size != 4096 || other || prod - cons < avail || avail < before + 24 || cons % 24 ||
      avail % 24)
    return XDP_DROP;
  return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
