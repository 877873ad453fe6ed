// SPDX-License-Identifier: GPL-2.0
//
// TCP MSS clamping, as routers do on links with a smaller MTU (PPPoE,
// tunnels): the MSS option of an IPv4 TCP SYN (or SYN-ACK) above the
// configured value (`mss_clamp[0]`, e.g. samples/xdp_tcp_mss.maps; 0 turns
// clamping off) is lowered to it, the TCP checksum is fixed incrementally
// (RFC 1624; an option at an odd offset from the header's start straddles
// two 16-bit words, so its bytes count swapped) and the packet goes back
// out (XDP_TX). Every TCP segment's options are walked, one option an
// iteration of a loop over the packet's bytes (at most 40 bytes, so at
// most 40 options): EOL ends them, NOP is one byte, the others carry
// a length. Malformed options drop the segment: a length under 2 or past
// the header's end, or a known kind of the wrong length (MSS 4, window
// scale 3, SACK permitted 2, SACK 2 + 8n with n from 1 to 4, timestamps
// 10); unknown kinds are skipped by their length. A data offset under 5
// words or past the packet drops too, as do truncated headers. Other
// segments pass untouched, as does all other traffic.
// Counts in `mss_stats`: [0] SYNs seen, [1] SYNs clamped, [2] segments
// dropped for their options.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define MAX_OPTION_BYTES 40 // a data offset of 15 words

enum { OPT_EOL = 0, OPT_NOP = 1, OPT_MSS = 2, OPT_WSCALE = 3, OPT_SACK_PERM = 4, OPT_SACK = 5,
       OPT_TIMESTAMPS = 8 };

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u32);
  __uint(max_entries, 1);
} mss_clamp SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 3);
} mss_stats SEC(".maps");

static __always_inline void count(__u32 k) {
  __u64 *n = bpf_map_lookup_elem(&mss_stats, &k);
  if (n)
    __sync_fetch_and_add(n, 1);
}

static __always_inline int malformed(void) {
  count(2);
  return XDP_DROP;
}

/// Whether a known option kind has a length it may have.
static __always_inline int length_ok(__u8 kind, __u64 len) {
  switch (kind) {
  case OPT_MSS:
    return len == 4;
  case OPT_WSCALE:
    return len == 3;
  case OPT_SACK_PERM:
    return len == 2;
  case OPT_SACK:
    return len >= 10 && len <= 34 && (len - 2) % 8 == 0;
  case OPT_TIMESTAMPS:
    return len == 10;
  default:
    return 1;
  }
}

/// The checksum after a 16-bit word of the summed data changes from `old`
/// to `new` (RFC 1624, eqn. 3), all three as numbers in network order.
static __always_inline __u16 csum_replace(__u16 check, __u16 old, __u16 new) {
  __u32 sum = (__u16)~check + (__u16)~old + (__u32) new;
  sum = (sum & 0xffff) + (sum >> 16);
  sum = (sum & 0xffff) + (sum >> 16);
  return (__u16)~sum;
}

SEC("xdp")
int xdp_tcp_mss(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end)
    return XDP_DROP;
  if (eth->h_proto != bpf_htons(ETH_P_IP))
    return XDP_PASS;
  struct iphdr *ip = (void *)(eth + 1);
  if ((void *)(ip + 1) > data_end || ip->ihl < 5)
    return XDP_DROP;
  if (ip->protocol != IPPROTO_TCP)
    return XDP_PASS;
  struct tcphdr *tcp = (void *)ip + ip->ihl * 4;
  if ((void *)(tcp + 1) > data_end || tcp->doff < 5)
    return XDP_DROP;
  // 64-bit offsets: 32-bit ones get zero-extended copies whose bounds the
  // kernel's verifier does not carry back to the offset itself.
  __u64 opt_len = tcp->doff * 4 - sizeof(*tcp);
  __u8 *opts = (__u8 *)(tcp + 1);
  if ((void *)opts + opt_len > data_end)
    return XDP_DROP;

  // The clamp, for SYNs only (0: leave the option alone).
  __u32 clamp = 0;
  if (tcp->syn) {
    count(0);
    __u32 k0 = 0;
    __u32 *c = bpf_map_lookup_elem(&mss_clamp, &k0);
    if (c)
      clamp = *c;
  }
  // An MSS option is clamped where it is found: a malformed option after it
  // drops the segment anyway. (Remembering where it was for after the loop
  // would make every offset it may sit at a state of its own to verify.)
  int clamped = 0;
  // Every iteration moves at least a byte on, so the loop ends within 40;
  // the verifiers (ours, the kernel's) follow it iteration by iteration. No
  // iteration counter: one makes the iterations' states differ and
  // multiplies the paths to verify (ours ran out of its 1,000,000
  // instruction budget with a counter of 10, the kernel's with one of 40).
  __u64 off = 0;
#pragma clang loop unroll(disable)
  while (off < opt_len && off < MAX_OPTION_BYTES) { // the second: for the verifiers
    __u8 *p = opts + off;
    if ((void *)(p + 1) > data_end)
      return XDP_DROP;
    __u8 kind = p[0];
    if (kind == OPT_EOL)
      break;
    if (kind == OPT_NOP) {
      off++;
      continue;
    }
    if (off + 2 > opt_len || (void *)(p + 2) > data_end)
      return malformed();
    __u64 len = p[1];
    if (len < 2 || off + len > opt_len || !length_ok(kind, len))
      return malformed();
    if (kind == OPT_MSS && clamp) {
      if ((void *)(p + 4) > data_end)
        return XDP_DROP; // cannot happen: the option is inside the header
      __u16 old = (__u16)p[2] << 8 | p[3], new = (__u16)clamp;
      if (old > new) {
        p[2] = new >> 8;
        p[3] = new & 0xff;
        __u16 was = old, now = new;
        if (off & 1) { // the two bytes sit in two words, each at its other half
          was = __builtin_bswap16(old);
          now = __builtin_bswap16(new);
        }
        tcp->check = bpf_htons(csum_replace(bpf_ntohs(tcp->check), was, now));
        clamped = 1;
      }
    }
    off += len;
  }
  if (!clamped)
    return XDP_PASS;
  count(1);
  return XDP_TX;
}

char _license[] SEC("license") = "GPL";
