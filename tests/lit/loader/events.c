// Event maps against the kernel, record for record: a full ring buffer
// refuses records as the kernel's does (bpf_ringbuf_output -EAGAIN,
// bpf_ringbuf_reserve null) and keeps what fit; discarded records take
// room until the reader takes the ring; the helpers' other return codes
// (bad flags, a packet shorter than the ctx-size, a perf event on another
// CPU) are the kernel's. Each packet fills the 4 KiB ring again: it is
// taken after every run, and a run is the whole pcap here, so after the
// first packet only what the first left room for fits.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 3 --seed 1
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host --dump-maps %t.maps --events %t.events 2>%t.err | FileCheck %s --check-prefix=SUMMARY
// SUMMARY: 57 event records
// RUN: FileCheck %s --check-prefix=MAPS < %t.maps
// RUN: FileCheck %s --check-prefix=WARN < %t.err
// WARN: warning: map ring: 127 event records refused: no room left in the run
// RUN: FileCheck %s --check-prefix=EVENTS < %t.events
// RUN: %if kernel-bpf %{ ebpf-gpu-loader run %t.o --pcap %t.pcap --backend kernel --dump-maps %t.kmaps --events %t.kevents > /dev/null %}
// RUN: %if kernel-bpf %{ diff %t.maps %t.kmaps %}
// RUN: %if kernel-bpf %{ diff %t.events %t.kevents %}
// A 64-byte record takes 72 bytes with its header: 56 fit in 4096 bytes
// (the last byte stays free, as in the kernel), one of them reserved and
// discarded, so 55 of the first packet's 60 outputs fit (-EAGAIN, -11, for
// the rest); the later packets find the ring full (60 + 1 refused each).
// MAPS: rc[0] = 55
// MAPS: rc[1] = 18446744073709551605
// Unknown ringbuf_output flags: -EINVAL; reserve with flags: null.
// MAPS: rc[2] = 18446744073709551594
// MAPS: rc[3] = 1
// perf_event_output: unknown flags -EINVAL, ctx-size past the packet
// -EFAULT, an explicit index other than this CPU's -EOPNOTSUPP.
// MAPS: rc[4] = 18446744073709551594
// MAPS: rc[5] = 18446744073709551602
// MAPS: rc[6] = 18446744073709551521
// MAPS: rc[7] = 1
// Map by map; the perf records padded as perf pads them (the 4 bytes plus
// 12 packet bytes and a u32 size end 8-aligned: 4 zero bytes).
// EVENTS: perf 37000000
// EVENTS-NEXT: perf 0800000002000000000102000000000200000000
// EVENTS-NEXT: ring 00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000
// EVENTS-NEXT: ring 01000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000
// EVENTS-NOT: ring 63000000
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 4096);
} ring SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
  __uint(key_size, sizeof(__u32));
  __uint(value_size, sizeof(__u32));
} perf SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 8);
  __type(key, __u32);
  __type(value, __s64);
} rc SEC(".maps");

static void put(__u32 k, __s64 v) { bpf_map_update_elem(&rc, &k, &v, BPF_ANY); }

static __s64 get(__u32 k) {
  __s64 *v = bpf_map_lookup_elem(&rc, &k);
  return v ? *v : 0;
}

SEC("xdp") int events(struct xdp_md *ctx) {
  __u64 rec[8] = {};
  __s64 ok = get(0), last = 0;
  for (int i = 0; i < 60; ++i) {
    rec[0] = i;
    long r = bpf_ringbuf_output(&ring, rec, sizeof(rec), 0);
    if (r == 0)
      ++ok;
    else
      last = r;
    if (i == 3) { // a discarded record: no event, but its room is used
      __u64 *d = bpf_ringbuf_reserve(&ring, sizeof(rec), 0);
      if (d) {
        d[0] = 99;
        bpf_ringbuf_discard(d, 0);
      }
    }
  }
  put(0, ok);
  if (last)
    put(1, last);
  put(2, bpf_ringbuf_output(&ring, rec, 8, 4));        // unknown flags
  __u64 *none = bpf_ringbuf_reserve(&ring, 8, 1);     // flags: refused
  if (none)
    bpf_ringbuf_discard(none, 0);
  else
    put(3, 1);
  __u64 v = 7;
  __u64 len = (__u64)((long)ctx->data_end - (long)ctx->data);
  put(4, bpf_perf_event_output(ctx, &perf, 1ull << 63, &v, sizeof(v)));          // bad flags
  put(5, bpf_perf_event_output(ctx, &perf, BPF_F_CURRENT_CPU | ((len + 1) << 32), &v,
                               sizeof(v)));                                      // past the packet
  put(6, bpf_perf_event_output(ctx, &perf, 1, &v, sizeof(v)));                   // CPU 1's event
  v = 8;
  if (get(7) == 0) { // the first packet only
    __u32 fit = (__u32)ok;
    bpf_perf_event_output(ctx, &perf, BPF_F_CURRENT_CPU, &fit, sizeof(fit));
    bpf_perf_event_output(ctx, &perf, 0 | (12ull << 32), &v, 4); // CPU 0, explicitly; 12 bytes of packet
    put(7, 1);
  }
  return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
