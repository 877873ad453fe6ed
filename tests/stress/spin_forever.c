// SPDX-License-Identifier: Apache-2.0
//
// A program that never returns, for the persistent GPU kernel's watchdog
// (scripts/gpu-check.sh): the verifier refuses it (an infinite loop), so it
// is compiled with --no-verify and run with --allow-unverified. A loaded,
// verified program cannot do this; a driver fault or a bug could.
#include <linux/bpf.h>

#define SEC(name) __attribute__((section(name), used))

SEC("xdp") int spin_forever(struct xdp_md *ctx) {
  volatile int spin = 1;
  while (spin)
    ;
  return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
