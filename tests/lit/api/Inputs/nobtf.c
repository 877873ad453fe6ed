// Global data in an object built without BTF (-g0): .bss has no types.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

unsigned long long hits = 0;

SEC("xdp")
int nobtf(struct xdp_md *ctx) {
  __sync_fetch_and_add(&hits, 3);
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
