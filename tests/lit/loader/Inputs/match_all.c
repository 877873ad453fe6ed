// SPDX-License-Identifier: Apache-2.0
// ebpf_gpu_match and ebpf_gpu_match_all over the same bytes, each packet's
// answers kept for a reference to compare (tests/lit/loader/match-regex.test,
// tests/gpu-device/kfuncs/match-regex.test): a frame is 14 bytes of
// Ethernet header, a u32 packet number (little-endian), then the payload
// scanned. results[number] gets the first match's id, match_all's count
// and its 256-bit bitmap (rule ids 0 to 255); the verdict is DROP when
// some rule matched, PASS when none did, ABORTED for a frame too short or
// a number past the array.

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <ebpf-gpu/kfuncs.h>

#define PAYLOAD 18

struct {
  __uint(type, BPF_MAP_TYPE_EBPF_GPU_PATTERNS);
  __uint(max_entries, 64 << 20);
} rules SEC(".maps");

struct result {
  __s32 first;
  __s32 count;
  __u64 bits[4];
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 8192);
  __type(key, __u32);
  __type(value, struct result);
} results SEC(".maps");

SEC("xdp")
int match_all(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  if (data + PAYLOAD > data_end)
    return XDP_ABORTED;
  __u32 n = *(__u32 *)(data + 14);
  struct result *r = bpf_map_lookup_elem(&results, &n);
  if (!r)
    return XDP_ABORTED;
  __u64 bits[4];
  int first = ebpf_gpu_match(ctx, PAYLOAD, &rules);
  int count = ebpf_gpu_match_all(ctx, PAYLOAD, &rules, bits, sizeof(bits));
  r->first = first;
  r->count = count;
  r->bits[0] = bits[0];
  r->bits[1] = bits[1];
  r->bits[2] = bits[2];
  r->bits[3] = bits[3];
  return first >= 0 ? XDP_DROP : XDP_PASS;
}

char _license[] SEC("license") = "GPL";
