// A program with a sockmap (no run-time implementation yet: the sockets it
// would hold are the kernel's).
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_SOCKMAP);
  __type(key, __u32);
  __type(value, __u32);
  __uint(max_entries, 4);
} socks SEC(".maps");

SEC("xdp") int uses_sockmap(struct xdp_md *ctx) {
  __u32 key = 0;
  return bpf_map_lookup_elem(&socks, &key) ? XDP_DROP : XDP_PASS;
}
