// No byte of one packet in another: what bpf_xdp_adjust_meta and
// bpf_xdp_adjust_head expose of the headroom is zero the first time a
// program sees it, as in the kernel's test runs, whatever an earlier packet
// left in the buffer (a reused mbuf, a GPU batch slot); what this packet's
// program wrote there stays. Each packet writes its metadata and its new
// header, leaves 16 of the 64 bytes it exposed unwritten (as the Linux
// sample xdp_adjust_tail leaves the IP id and frag_off of its ICMP replies)
// and sends them out; a packet that finds another's bytes is dropped and
// counted. The host agrees with the kernel, and `forward` in the mbufs
// themselves (--zero-copy, reused one packet a batch) with `run`.
// scripts/gpu-check.sh runs it on the GPU in batches of 256 through every
// mode and data path.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: ebpf-gpu-trafgen -o %t.d/in.pcap --count 300 --seed 13
// RUN: ebpf-gpu-loader run %t.o --pcap %t.d/in.pcap --out %t.d/run.pcap --verdicts %t.d/run.v --json --dump-maps %t.d/run.maps > %t.d/run.json
// RUN: ebpf-gpu-loader run %t.o --pcap %t.d/in.pcap | FileCheck %s
// CHECK: XDP_DROP 0
// CHECK: XDP_TX 300
// RUN: FileCheck %s --check-prefix=MAPS < %t.d/run.maps
// MAPS: counts[0] = 300
// MAPS-NOT: counts[1]
// The bytes sent: the unwritten 16 are zero, the metadata's 32 this
// packet's 0xdd.
// RUN: %python -c "import sys; d = open(sys.argv[1], 'rb').read()[40:]; print(d[:16].hex(), d[16:32].hex(), d[32:64].hex())" %t.d/run.pcap | FileCheck %s --check-prefix=BYTES
// BYTES: {{^([0-9a-f][13579bdf]){16} 0{32} d{64}$}}
// RUN: %if dpdk %{ ebpf-gpu-loader forward %t.o --zero-copy --port net_pcap0,rx_pcap=%t.d/in.pcap,tx_pcap=%t.d/zc.tx.pcap --exception net_pcap1,tx_pcap=%t.d/zc.exc.pcap --batch 1 --idle-ms 300 --json > %t.d/zc.json %}
// RUN: %if dpdk %{ %python %S/../runtime/Inputs/compare-forward.py %t.d/run.json %t.d/run.v %t.d/run.pcap %t.d/zc.json %t.d/zc.tx.pcap %t.d/zc.exc.pcap | FileCheck %s --check-prefix=FWD %}
// RUN: %if dpdk %{ ebpf-gpu-loader forward %t.o --port net_pcap0,rx_pcap=%t.d/in.pcap,tx_pcap=%t.d/cp.tx.pcap --exception net_pcap1,tx_pcap=%t.d/cp.exc.pcap --batch 1 --idle-ms 300 --json > %t.d/cp.json %}
// RUN: %if dpdk %{ %python %S/../runtime/Inputs/compare-forward.py %t.d/run.json %t.d/run.v %t.d/run.pcap %t.d/cp.json %t.d/cp.tx.pcap %t.d/cp.exc.pcap | FileCheck %s --check-prefix=FWD %}
// FWD: actions equal: 300 packets
// FWD-NEXT: tx: 300 packets equal
// The GPU's module builds (the helpers are shared).
// RUN: ebpf-gpu-cc %t.o --emit=ptx --target=sm_90 -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: ebpf-gpu-cc %t.o -o %t.gpu.o
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.gpu.o --pcap %t.d/in.pcap --batch 16 --out %t.d/gpu.pcap | FileCheck %s %}
// RUN: %if cuda-gpu %{ cmp %t.d/run.pcap %t.d/gpu.pcap %}
// (Against the kernel where it offers XDP programs bpf_xdp_adjust_meta:
// lit's kernel-adjust-meta feature.)
// RUN: %if kernel-adjust-meta %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader \
// RUN:   --pcap %t.d/in.pcap --work %t.d/k %t.o:headroom | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: headroom: 300 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

// [0]: packets seen; [1]: packets that found another packet's bytes.
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 2);
  __type(key, __u32);
  __type(value, __u64);
} counts SEC(".maps");

static __always_inline void count(__u32 k) {
  __u64 *v = bpf_map_lookup_elem(&counts, &k);
  if (v)
    __sync_fetch_and_add(v, 1);
}

SEC("xdp") int headroom(struct xdp_md *ctx) {
  count(0);
  // 32 bytes of metadata: new to this packet, so zero.
  if (bpf_xdp_adjust_meta(ctx, -32))
    return XDP_ABORTED;
  __u8 *meta = (void *)(long)ctx->data_meta;
  __u8 *data = (void *)(long)ctx->data;
  if (meta + 32 > data)
    return XDP_ABORTED;
  __u8 other = 0;
#pragma unroll
  for (int i = 0; i < 32; i++)
    other |= meta[i];
  __builtin_memset(meta, 0xdd, 32);
  if (bpf_xdp_adjust_meta(ctx, 32))
    return XDP_ABORTED;
  // 64 bytes in front of the packet: the 32 below the metadata's are new
  // (zero), the metadata's keep this packet's 0xdd.
  if (bpf_xdp_adjust_head(ctx, -64))
    return XDP_ABORTED;
  data = (void *)(long)ctx->data;
  __u8 *end = (void *)(long)ctx->data_end;
  if (data + 64 + 14 > end)
    return XDP_ABORTED;
#pragma unroll
  for (int i = 0; i < 32; i++)
    other |= data[i] | (__u8)(data[32 + i] ^ 0xdd);
  if (other) {
    count(1);
    return XDP_DROP;
  }
  // A 16-byte header of this packet's own (its source MAC's first byte,
  // odd), then 16 bytes left unwritten: an earlier packet's, without the
  // zeroing.
  __builtin_memset(data, data[64 + 6] | 1, 16);
  return XDP_TX;
}
