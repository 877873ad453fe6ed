// SPDX-License-Identifier: Apache-2.0
//
// A control program on a skeleton, as a libbpf program on bpftool's: sets
// xdp_config_count's constants before load, runs a burst of packets
// through it, and reads its counters from its global data and its map.
//   ebpf-gpu-cc --emit=skeleton xdp_config_count.o > xdp_config_count.skel.h
//   cc xdp_config_count_user.c $(pkg-config --cflags --libs ebpf-gpu)
//   ./a.out [host|gpu] [PROTO]     (PROTO: drop this IP protocol)

#include "xdp_config_count.skel.h"

#include <stdio.h>

#define BURST 300

int main(int argc, char **argv) {
  static const uint8_t protos[] = {6, 17, 1}; /* TCP, UDP, ICMP */
  static uint8_t frames[BURST][128];
  struct ebpf_gpu_packet pkts[BURST];
  struct ebpf_gpu_load_opts opts = {.sz = sizeof(opts)};
  struct xdp_config_count_gpu *skel;
  uint32_t key, verdicts[5] = {0};
  uint64_t count;
  int i, err;

  if (argc > 1 && strcmp(argv[1], "gpu") == 0)
    opts.backend = EBPF_GPU_BACKEND_GPU;
  skel = xdp_config_count_gpu__open_opts(&opts);
  if (!skel) {
    fprintf(stderr, "open: %s\n", ebpf_gpu_last_error());
    return 1;
  }
  if (argc > 2) { /* constants: set before load, folded into the program */
    skel->rodata->mode = COUNT_AND_DROP;
    skel->rodata->drop_proto = (uint8_t)atoi(argv[2]);
  }
  err = xdp_config_count_gpu__load(skel);
  if (err) {
    fprintf(stderr, "load: %s\n", ebpf_gpu_last_error());
    xdp_config_count_gpu__destroy(skel);
    return 1;
  }
  skel->data_ctl->generation = 2; /* global data: the next burst sees it */

  for (i = 0; i < BURST; i++) { /* IPv4 of three protocols, every tenth ARP */
    frames[i][12] = 0x08;
    frames[i][13] = i % 10 == 9 ? 0x06 : 0x00;
    frames[i][14] = 0x45;
    frames[i][23] = protos[i % 3];
    pkts[i].data = frames[i];
    pkts[i].len = 60 + i % 4;
    pkts[i].cap = sizeof(frames[i]);
  }
  if (ebpf_gpu_prog__run_burst(skel->progs.xdp_config_count, pkts, BURST) < 0) {
    fprintf(stderr, "run: %s\n", ebpf_gpu_last_error());
    xdp_config_count_gpu__destroy(skel);
    return 1;
  }
  for (i = 0; i < BURST; i++)
    verdicts[pkts[i].verdict < 5 ? pkts[i].verdict : 0]++;

  printf("backend %s\n", ebpf_gpu_prog__backend(skel->prog));
  printf("verdicts: drop %u pass %u\n", verdicts[1], verdicts[2]);
  printf("packets %llu dropped %llu\n", (unsigned long long)skel->bss->packets,
         (unsigned long long)skel->bss->dropped);
  printf("traffic: %llu bytes, %u ipv4, %u other\n", (unsigned long long)skel->bss->traffic.bytes,
         skel->bss->traffic.ipv4, skel->bss->traffic.other);
  for (err = ebpf_gpu_map__get_next_key(skel->maps.proto_count, NULL, &key, sizeof(key)); !err;
       err = ebpf_gpu_map__get_next_key(skel->maps.proto_count, &key, &key, sizeof(key)))
    if (!ebpf_gpu_map__lookup_elem(skel->maps.proto_count, &key, sizeof(key), &count,
                                   sizeof(count), 0) &&
        count)
      printf("proto %u: %llu\n", key, (unsigned long long)count);
  xdp_config_count_gpu__destroy(skel);
  return 0;
}
