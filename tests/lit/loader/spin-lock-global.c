// A struct bpf_spin_lock in global data (.bss), as the kernel allows since
// Linux 6.2 (btf_find_field over the section's variables): the object
// reader finds it among the section's BTF variables, the verifier checks
// bpf_spin_lock/unlock on it as on a map value's, and the runtime spins on
// it. Each packet counts itself under the lock and, as a check, with an
// atomic add: no increment is lost, the lock reads 0 in the dump, host and
// kernel agree on every verdict and the global data. A value set from user
// space (--map-set .bss:...) leaves the lock word as the map has it (ff
// bytes given there would otherwise leave it held and the run waiting).
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 1000 --seed 4
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host --dump-maps %t.maps | FileCheck %s
// CHECK: XDP_PASS 1000
// The section: glock (0) and 4 bytes of padding, gcount (8), gbytes (16),
// gatomic (24).
// RUN: FileCheck %s --check-prefix=MAPS < %t.maps
// MAPS: .bss[0] = 0000000000000000e80300000000000084dc030000000000e803000000000000
// RUN: timeout 60 ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host --dump-maps %t.set.maps \
// RUN:   --map-set .bss:00000000:ffffffff00000000050000000000000000000000000000000000000000000000 \
// RUN:   | FileCheck %s
// RUN: FileCheck %s --check-prefix=SET < %t.set.maps
// SET: .bss[0] = 0000000000000000ed0300000000000084dc030000000000e803000000000000
// RUN: ebpf-gpu-cc %t.o -o %t.gpu.o
// RUN: ebpf-gpu-cc %t.o --emit=ptx --target=sm_90 -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader \
// RUN:   --pcap %t.pcap --work %t.d %t.o:global_locked | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: global_locked: 1000 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

struct bpf_spin_lock glock;
__u64 gcount, gbytes, gatomic;

SEC("xdp") int global_locked(struct xdp_md *ctx) {
  __u64 len = ctx->data_end - ctx->data;
  bpf_spin_lock(&glock);
  // Plain read-modify-writes: only the lock keeps them whole.
  gcount++;
  gbytes += len;
  bpf_spin_unlock(&glock);
  __sync_fetch_and_add(&gatomic, 1);
  return XDP_PASS;
}
