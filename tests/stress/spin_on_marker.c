// SPDX-License-Identifier: Apache-2.0
//
// Passes every frame but one kind: a frame of the local experimental
// EtherType 0x88b5 makes it loop for ever. The daemon's GPU fault
// containment check (scripts/gpu-check.sh) runs it in the persistent kernel
// with a short watchdog and sends one such frame: the batch holding it
// hangs, the daemon re-creates the back end (a new CUDA context), and the
// ordinary traffic of the same program flows again. Refused by the
// verifier (the loop), so compiled with --no-verify and loaded only by a
// daemon started with the test-only --allow-unverified.
#include <linux/bpf.h>
#include <linux/if_ether.h>

#define SEC(name) __attribute__((section(name), used))

SEC("xdp") int spin_on_marker(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end)
    return XDP_PASS;
  // 0x88b5 in network byte order, read on a little-endian machine.
  if (eth->h_proto == 0xb588) {
    volatile int spin = 1;
    while (spin)
      ;
  }
  return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
