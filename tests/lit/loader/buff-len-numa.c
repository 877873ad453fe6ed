// bpf_xdp_get_buff_len (helper 188): the packet's length, data to
// data_end, which bpf_xdp_adjust_tail changes and bpf_xdp_adjust_meta does
// not (the metadata does not count); and bpf_get_numa_node_id (42): the
// NUMA node of the CPU that runs the program. Host and kernel agree on
// verdicts, output packets and maps; pinned to CPU 0 (where the kernel
// back end runs its test runs), the host back end's node is CPU 0's
// (stored plus one).
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 40 --seed 9
// RUN: ebpf-gpu-cc %t.o --section buff_len -o %t.len.gpu.o
// RUN: ebpf-gpu-cc %t.o --section numa -o %t.numa.gpu.o
// The GPU reads the node the loader writes to a module global.
// RUN: ebpf-gpu-cc %t.o --section numa --emit=ptx --target=sm_90 -o %t.numa.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.numa.ptx
// PTX: .visible .global .align 4 .u32 ebpfgpu_numa_node
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.numa.ptx -o %t.numa.cubin %}
// RUN: ebpf-gpu-cc %t.o --section buff_len --emit=ptx --target=sm_90 -o %t.len.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.len.ptx -o %t.len.cubin %}
// RUN: ebpf-gpu-loader run %t.o --section buff_len --pcap %t.pcap | FileCheck %s
// RUN: ebpf-gpu-loader run %t.o --section numa --pcap %t.pcap | FileCheck %s
// CHECK: XDP_PASS 40
// CHECK-NOT: XDP_DROP
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.len.gpu.o --pcap %t.pcap | FileCheck %s %}
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.numa.gpu.o --pcap %t.pcap | FileCheck %s %}
// RUN: ebpf-gpu-loader run %t.o --section buff_len --pcap %t.pcap --backend host --dump-maps %t.len.maps
// RUN: FileCheck %s --check-prefix=LEN < %t.len.maps
// LEN: lens[0] = 40
// LEN: lens[1] = {{[1-9][0-9]*}}
// RUN: taskset -c 0 ebpf-gpu-loader run %t.o --section numa --pcap %t.pcap --backend host --dump-maps %t.numa.maps
// RUN: %python -c "import glob; print('node[0] = %%d' %% (1 + int(glob.glob('/sys/devices/system/cpu/cpu0/node*')[0].rsplit('node', 1)[1])))" > %t.want
// RUN: grep -F -x -f %t.want %t.numa.maps
// (Against the kernel where it offers XDP programs bpf_xdp_adjust_meta:
// lit's kernel-adjust-meta feature.)
// RUN: %if kernel-adjust-meta %{ taskset -c 0 %python %S/Inputs/differential.py --loader ebpf-gpu-loader \
// RUN:   --pcap %t.pcap --work %t.d %t.o:buff_len %t.o:numa | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: buff_len: 40 packets, host and kernel agree
// KERNEL: numa: 40 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 2);
  __type(key, __u32);
  __type(value, __u64);
} lens SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} node SEC(".maps");

SEC("xdp") int buff_len(struct xdp_md *ctx) {
  __u64 len = bpf_xdp_get_buff_len(ctx);
  if (len != (__u64)(ctx->data_end - ctx->data))
    return XDP_DROP;
  // The kernel's test runs give back the metadata with the packet: none is
  // left.
  if (bpf_xdp_adjust_meta(ctx, -8) || bpf_xdp_get_buff_len(ctx) != len ||
      bpf_xdp_adjust_meta(ctx, 8))
    return XDP_DROP;
  if (bpf_xdp_adjust_tail(ctx, -4) || bpf_xdp_get_buff_len(ctx) != len - 4)
    return XDP_DROP;
  if (len != (__u64)(ctx->data_end - ctx->data) + 4)
    return XDP_DROP;
  __u32 k0 = 0, k1 = 1;
  __u64 *packets = bpf_map_lookup_elem(&lens, &k0), *bytes = bpf_map_lookup_elem(&lens, &k1);
  if (!packets || !bytes)
    return XDP_ABORTED;
  *packets += 1;
  *bytes += len;
  return XDP_PASS;
}

SEC("xdp") int numa(struct xdp_md *ctx) {
  __u32 k = 0;
  __u64 id = bpf_get_numa_node_id();
  // Plus one: the dump leaves out entries that are 0.
  __u64 stored = id + 1;
  bpf_map_update_elem(&node, &k, &stored, BPF_ANY);
  // CONFIG_NODES_SHIFT is at most 10.
  return id < 1024 ? XDP_PASS : XDP_DROP;
}
