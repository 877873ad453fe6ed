// bpf_printk with more than three arguments, which libbpf's macro makes a
// call of bpf_trace_vprintk (helper 177): the format and its u64
// arguments formatted as the kernel's bpf_bprintf_prepare and bstr_printf
// (numbers with widths and flags, %c, %s and %pks from the stack, %pI4 and
// %pI6), the line written to the trace log as bpf_trace_printk's
// (--trace), the whole line's length returned. Each packet's answers are
// kept in a map: host and kernel agree on every packet's verdict and the
// maps (the kernel's lines go to its trace pipe). The verifier takes a
// constant format, as for bpf_snprintf (tests/lit/verifier/snprintf.c).
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 300 --seed 6
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host --trace %t.trace \
// RUN:   --dump-maps %t.maps | FileCheck %s
// CHECK: XDP_PASS 300
// RUN: FileCheck %s --check-prefix=TRACE < %t.trace
// TRACE: len {{[0-9]+}} proto {{[0-9a-f]+}} neg -{{[0-9]+}} tag xdp-gpu ch x pad [   {{[0-9]+}}] hex 0x{{[0-9A-F]+}}
// TRACE: from {{[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+}} to {{[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+}} v6 fe80:0000:0000:0000:0000:0000:0000:00{{[0-9a-f][0-9a-f]}} end 7
// RUN: FileCheck %s --check-prefix=MAPS < %t.maps
// MAPS: lengths[0] =
// RUN: ebpf-gpu-cc %t.o -o %t.gpu.o
// RUN: ebpf-gpu-cc %t.o --emit=ptx --target=sm_90 -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader \
// RUN:   --pcap %t.pcap --work %t.d %t.o:vprintk | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: vprintk: 300 packets, host and kernel agree
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 2);
  __type(key, __u32);
  __type(value, __s64);
} lengths SEC(".maps");

SEC("xdp") int vprintk(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
  __u32 len = data_end - data, k0 = 0, k1 = 1;
  char tag[8] = "xdp-gpu";
  __u8 v6[16] = {};
  v6[0] = 0xfe;
  v6[1] = 0x80;
  v6[15] = len; // written here: a constant array would be a .rodata.cst16 section
  __u8 ips[8] = {10, 0, 0, 1, 192, 168, 1, 2};
  struct ethhdr *eth = data;
  struct iphdr *ip = (void *)(eth + 1);
  if ((void *)(ip + 1) <= data_end)
    __builtin_memcpy(ips, &ip->saddr, 8);
  __s64 a = bpf_printk("len %u proto %x neg %d tag %s ch %c pad [%5u] hex 0x%llX", len,
                       len & 0xff, -(int)len, tag, 'x', len % 100, (__u64)len << 20);
  __s64 b = bpf_printk("from %pI4 to %pI4 v6 %pI6 end %d", ips, ips + 4, v6, 7);
  __s64 *pa = bpf_map_lookup_elem(&lengths, &k0), *pb = bpf_map_lookup_elem(&lengths, &k1);
  if (!pa || !pb)
    return XDP_ABORTED;
  *pa += a;
  *pb += b;
  return a > 0 && b > 0 ? XDP_PASS : XDP_DROP;
}
