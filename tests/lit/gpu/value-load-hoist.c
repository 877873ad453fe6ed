// Loads from a shared hashed map's value that every path after a branch
// performs are issued before the branch on the GPU
// (hoistAndStrengthenValueLoads): the bucket's tokens and its refill time
// go to memory together, one round trip instead of two. They stay strong
// (volatile): the program writes the value in place. The host back end
// keeps plain loads and the program's own order.
// RUN: %clang-bpf -c %s -o %t.both.o
// RUN: ebpf-gpu-cc %t.both.o --emit=gpu-llvm --target=sm_90 -o %t.both.ll
// RUN: FileCheck %s --check-prefix=BOTH < %t.both.ll
// BOTH-LABEL: define {{.*}}@ebpfgpu_xdp_batch(
// BOTH: load volatile i64, ptr %{{[0-9]+}}, align 8{{$}}
// BOTH-NOT: br {{.*}}label
// BOTH: load volatile i64, ptr %{{[0-9]+}}, align 8{{$}}
// BOTH: br i1
// BOTH-NOT: load volatile i64, ptr %{{[0-9]+}}, align 8{{$}}
// BOTH-LABEL: define {{.*}}@ebpfgpu_xdp_persistent(
// BOTH-NOT: ebpfgpu.map_value.mark
// RUN: ebpf-gpu-cc %t.both.o --emit=llvm -o - | FileCheck %s --check-prefix=HOST
// HOST-NOT: volatile
// HOST-NOT: ebpfgpu.map_value.mark
// RUN: ebpf-gpu-cc %t.both.o --emit=ptx --target=sm_90 -o %t.both.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.both.ptx -o %t.both.cubin %}
//
// Read in one arm only: issuing it before the branch would add a load to
// the other arm's packets, so it stays where it is.
// RUN: %clang-bpf -DONE_ARM -c %s -o %t.one.o
// RUN: ebpf-gpu-cc %t.one.o --emit=gpu-llvm --target=sm_90 -o %t.one.ll
// RUN: FileCheck %s --check-prefix=APART < %t.one.ll
// APART-LABEL: define {{.*}}@ebpfgpu_xdp_batch(
// APART: load volatile i64, ptr %{{[0-9]+}}, align 8{{$}}
// APART: br i1
// APART: load volatile i64, ptr %{{[0-9]+}}, align 8{{$}}
// APART-LABEL: define {{.*}}@ebpfgpu_xdp_persistent(
//
// A sequentially consistent add between the branch and one arm's read
// orders that read after it: the read may not move above it, and the
// other arm's read alone is not on every path.
// RUN: %clang-bpf -DORDERED -c %s -o %t.ord.o
// RUN: ebpf-gpu-cc %t.ord.o --emit=gpu-llvm --target=sm_90 -o %t.ord.ll
// RUN: FileCheck %s --check-prefix=APART < %t.ord.ll
//
// A map no program writes in place keeps plain loads, and with the value's
// bytes known dereferenceable LLVM itself issues both before the compare
// (the arms become selects).
// RUN: %clang-bpf -DREAD_ONLY -c %s -o %t.ro.o
// RUN: ebpf-gpu-cc %t.ro.o --emit=gpu-llvm --target=sm_90 -o %t.ro.ll
// RUN: FileCheck %s --check-prefix=PLAIN < %t.ro.ll
// PLAIN-LABEL: define {{.*}}@ebpfgpu_xdp_batch(
// PLAIN-NOT: load volatile i64, ptr %{{[0-9]+}}, align 8{{$}}
// PLAIN: {{^}}ebpfgpu_hash_lookup_elem.exit{{.*}}:
// PLAIN-NOT: load volatile i64, ptr %{{[0-9]+}}, align 8{{$}}
// PLAIN: load i64, ptr %{{[0-9]+}}, align 8{{$}}
// PLAIN-NOT: br {{.*}}label
// PLAIN: load i64, ptr %{{[0-9]+}}, align 8{{$}}
// PLAIN-NOT: load volatile i64, ptr %{{[0-9]+}}, align 8{{$}}
// PLAIN-LABEL: define {{.*}}@ebpfgpu_xdp_persistent(
//
// Each variant runs on the host back end with the same verdicts as the
// program says (the GPU's are checked on a GPU by gpu-device/serial).
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 64 --seed 5
// RUN: ebpf-gpu-loader run %t.both.o --backend host --pcap %t.pcap | FileCheck %s --check-prefix=EXEC
// RUN: ebpf-gpu-loader run %t.one.o --backend host --pcap %t.pcap | FileCheck %s --check-prefix=EXEC
// RUN: ebpf-gpu-loader run %t.ord.o --backend host --pcap %t.pcap | FileCheck %s --check-prefix=EXEC
// RUN: ebpf-gpu-loader run %t.ro.o --backend host --pcap %t.pcap | FileCheck %s --check-prefix=EXEC
// EXEC: on the host back end, 64 packets

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

struct bucket {
  __u64 tokens;
  __u64 stamp;
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, __u32);
  __type(value, struct bucket);
  __uint(max_entries, 64);
} buckets SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 1);
} seen SEC(".maps");

SEC("xdp")
int value_loads(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end)
    return XDP_DROP;
  __u32 key = eth->h_source[5] & 7;
  struct bucket *b = bpf_map_lookup_elem(&buckets, &key);
  if (!b) {
#ifndef READ_ONLY
    struct bucket fresh = {.tokens = 3, .stamp = eth->h_dest[5]};
    bpf_map_update_elem(&buckets, &key, &fresh, BPF_ANY);
#endif
    return XDP_PASS;
  }
  __u64 tokens;
  if (b->stamp > eth->h_dest[5]) {
#ifndef READ_ONLY
    b->stamp = eth->h_dest[5];
#endif
#ifdef ORDERED
    __u32 zero = 0;
    __u64 *n = bpf_map_lookup_elem(&seen, &zero);
    if (n)
      __sync_fetch_and_add(n, 1);
#endif
    tokens = b->tokens + 1;
  } else {
#ifdef ONE_ARM
    tokens = 1;
#else
    tokens = b->tokens;
#endif
  }
  if (tokens == 0)
    return XDP_DROP;
#ifndef READ_ONLY
  b->tokens = tokens - 1;
#endif
  return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
