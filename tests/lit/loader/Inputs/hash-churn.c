// Hash map churn: 16 keys into an 8-entry map, chosen by the packet's IPv4
// id; inserts, replacing updates, deletes and lookups whose return codes
// (EEXIST, ENOENT, E2BIG when full) decide the verdict.
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 8);
} churn SEC(".maps");

SEC("xdp") int hash_churn(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
    return XDP_PASS;
  struct iphdr *ip = (void *)(eth + 1);
  if ((void *)(ip + 1) > end)
    return XDP_PASS;
  __u32 id = bpf_ntohs(ip->id);
  __u32 key = id & 0xf;
  __u64 value = id;
  long rc;
  switch ((id >> 4) & 3) {
  case 0:
    rc = bpf_map_delete_elem(&churn, &key);
    break;
  case 1:
    rc = bpf_map_update_elem(&churn, &key, &value, BPF_ANY);
    break;
  case 2:
    rc = bpf_map_update_elem(&churn, &key, &value, BPF_NOEXIST);
    break;
  default: {
    __u64 *v = bpf_map_lookup_elem(&churn, &key);
    rc = v ? 0 : -2;
    if (v)
      *v += 1;
  }
  }
  return rc == 0 ? XDP_PASS : rc == -17 ? XDP_TX : rc == -7 ? XDP_ABORTED : XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
