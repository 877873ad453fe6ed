// SPDX-License-Identifier: GPL-2.0
//
// Counts what passes, and drops one IP protocol when told to, with its
// settings and counters in global data, as a control program drives it
// through a skeleton (xdp_config_count_user.c): the mode and the protocol
// to drop are constants in .rodata that the control program sets before
// load, the counters are in .bss and .data, the count per protocol in a
// map.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

enum count_mode { COUNT_ONLY = 0, COUNT_AND_DROP = 1 };

struct traffic {
  __u64 bytes;
  __u32 ipv4;
  __u32 other;
};

const volatile enum count_mode mode = COUNT_ONLY;
const volatile __u8 drop_proto = 17;

__u64 packets = 0;
__u64 dropped = 0;
struct traffic traffic = {0};
__u32 generation SEC(".data.ctl") = 1;

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 256);
  __type(key, __u32);
  __type(value, __u64);
} proto_count SEC(".maps");

SEC("xdp")
int xdp_config_count(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  struct iphdr *ip = (void *)(eth + 1);

  __sync_fetch_and_add(&packets, generation);
  __sync_fetch_and_add(&traffic.bytes, data_end - data);
  if ((void *)(ip + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP)) {
    __sync_fetch_and_add(&traffic.other, 1);
    return XDP_PASS;
  }
  __sync_fetch_and_add(&traffic.ipv4, 1);
  __u32 key = ip->protocol;
  __u64 *count = bpf_map_lookup_elem(&proto_count, &key);
  if (count)
    __sync_fetch_and_add(count, 1);
  if (mode == COUNT_AND_DROP && ip->protocol == drop_proto) {
    __sync_fetch_and_add(&dropped, 1);
    return XDP_DROP;
  }
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
