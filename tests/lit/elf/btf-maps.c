// BTF-defined maps of several types (map-in-map included) and a legacy
// map; map references become named globals the loader binds, helper calls
// become typed calls to runtime functions.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-cc %t.o --emit=maps | FileCheck %s --check-prefix=MAPS
// RUN: ebpf-gpu-cc %t.o --emit=insns | FileCheck %s --check-prefix=INSNS
// RUN: ebpf-gpu-cc %t.o --emit=llvm | FileCheck %s --check-prefix=IR
// MAPS: legacy: hash key 4B value 4B max_entries 16
// MAPS: counters: percpu_array key 4B value 8B max_entries 4
// MAPS: flows: lru_hash key 12B value 16B max_entries 65536
// MAPS: routes: lpm_trie key 8B value 4B max_entries 256 flags 0x1
// MAPS: outer: array_of_maps key 4B value 4B max_entries 8 inner hash key 4B value 4B max_entries 32
// INSNS: r1 = map[counters]
// INSNS: call bpf_map_lookup_elem#1
// IR: @ebpfgpu_map_counters = {{.*}}global ptr null, align 8
// IR: call ptr @ebpfgpu_map_lookup_elem(ptr
// IR: declare ptr @ebpfgpu_map_lookup_elem(ptr, ptr, ptr)

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct legacy_map_def {
  unsigned int type, key_size, value_size, max_entries, map_flags;
};
struct legacy_map_def legacy SEC("maps") = {BPF_MAP_TYPE_HASH, 4, 4, 16, 0};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 4);
} counters SEC(".maps");

struct flow_key {
  __u32 src, dst;
  __u16 sport, dport;
};
struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __type(key, struct flow_key);
  __type(value, __u64[2]);
  __uint(max_entries, 65536);
} flows SEC(".maps");

struct lpm_key {
  __u32 prefixlen, addr;
};
struct {
  __uint(type, BPF_MAP_TYPE_LPM_TRIE);
  __type(key, struct lpm_key);
  __type(value, __u32);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __uint(max_entries, 256);
} routes SEC(".maps");

struct inner {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, __u32);
  __type(value, __u32);
  __uint(max_entries, 32);
};
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
  __uint(max_entries, 8);
  __type(key, __u32);
  __array(values, struct inner);
} outer SEC(".maps");

SEC("xdp") int use_maps(struct xdp_md *ctx) {
  __u32 k = 0;
  __u64 *c = bpf_map_lookup_elem(&counters, &k);
  if (c)
    *c += 1;
  struct flow_key fk = {1, 2, 3, 4};
  if (bpf_map_lookup_elem(&flows, &fk))
    return XDP_DROP;
  struct lpm_key lk = {32, 0x0a000001};
  if (bpf_map_lookup_elem(&routes, &lk))
    return XDP_TX;
  if (bpf_map_lookup_elem(&outer, &k))
    return XDP_ABORTED;
  if (bpf_map_lookup_elem(&legacy, &k))
    return XDP_ABORTED;
  return XDP_PASS;
}
