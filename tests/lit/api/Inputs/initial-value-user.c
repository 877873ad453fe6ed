/* SPDX-License-Identifier: Apache-2.0
 *
 * Global data's bytes set between ebpf_gpu_prog__open and __load_opened
 * with ebpf_gpu_map__set_initial_value, as a libbpf control program sets
 * them with bpf_map__set_initial_value (initial-value.test), on
 * samples/xdp_config_count.c: .rodata's mode and protocol (constants the
 * compiled program folds: it drops TCP only if it saw them), .bss's packet
 * count and .data.ctl's generation (what the program adds per packet), run
 * on the host back end; then the refusals, and a .gpu.o's sections, opened
 * without a GPU. Prints one line a step; exits 1 on the first check that
 * fails.
 */
#include <ebpf-gpu/ebpf-gpu.h>

#include <errno.h>
#include <linux/bpf.h> /* XDP_PASS, XDP_DROP */
#include <stdio.h>
#include <string.h>

#include "check.h"

static struct ebpf_gpu_map *map(struct ebpf_gpu_prog *p, const char *name) {
  return ebpf_gpu_prog__find_map_by_name(p, name);
}

/* A 60-byte IPv4 frame of protocol `proto`. */
static uint32_t frame(uint8_t *f, uint8_t proto) {
  memset(f, 0, 128);
  f[12] = 0x08, f[13] = 0x00;
  f[14] = 0x45, f[17] = 46, f[22] = 64, f[23] = proto;
  return 60;
}

/* The .gpu.o's sections, opened here without a GPU: .data.ctl takes its
 * bytes (they are the map's once loaded on a GPU: tests/api/consumer.c),
 * .rodata is compiled into the code. */
static int gpu_object(const char *path) {
  struct ebpf_gpu_prog *g = ebpf_gpu_prog__open(path, NULL);
  CHECK(g, "open %s", path);
  struct ebpf_gpu_map *ctl = map(g, ".data.ctl"), *ro = map(g, ".rodata");
  CHECK(ctl && ro, ".gpu.o's global data");
  CHECK(!ebpf_gpu_map__data(ctl, NULL) && errno == EOPNOTSUPP, ".gpu.o: no bytes before a set");
  uint32_t gen = 9;
  CHECK(ebpf_gpu_map__set_initial_value(ctl, &gen, sizeof(gen)) == 0, ".gpu.o .data.ctl");
  uint32_t *at = ebpf_gpu_map__data(ctl, NULL);
  CHECK(at && *at == 9, ".gpu.o .data.ctl's bytes before load");
  uint8_t rodata[64] = {0};
  CHECK(ebpf_gpu_map__set_initial_value(ro, rodata, ebpf_gpu_map__value_size(ro)) ==
                -EOPNOTSUPP &&
            errno == EOPNOTSUPP,
        ".gpu.o .rodata");
  printf(".gpu.o: .data.ctl = %u before load; %s\n", *at, ebpf_gpu_last_error());
  ebpf_gpu_prog__close(g);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s xdp_config_count.o xdp_config_count.gpu.o\n", argv[0]);
    return 2;
  }
  struct ebpf_gpu_load_opts o = {.sz = sizeof(o), .backend = EBPF_GPU_BACKEND_HOST};
  struct ebpf_gpu_prog *p = ebpf_gpu_prog__open(argv[1], &o);
  CHECK(p, "open %s", argv[1]);
  struct ebpf_gpu_map *ro = map(p, ".rodata"), *bss = map(p, ".bss"), *ctl = map(p, ".data.ctl");
  CHECK(ro && bss && ctl, "the object's global data");

  /* mode COUNT_AND_DROP (offset 0), drop_proto 6 (offset 4). */
  uint8_t rodata[64] = {0};
  uint32_t ro_size = ebpf_gpu_map__value_size(ro);
  CHECK(ro_size >= 5 && ro_size <= sizeof(rodata), ".rodata of %u bytes", ro_size);
  rodata[0] = 1, rodata[4] = 6;
  uint64_t counters[4] = {100, 0, 0, 0};
  uint32_t gen = 3;
  CHECK(ebpf_gpu_map__value_size(bss) == sizeof(counters), ".bss of %u bytes",
        ebpf_gpu_map__value_size(bss));

  /* The refusals, nothing changed by them. */
  CHECK(ebpf_gpu_map__set_initial_value(ro, rodata, ro_size - 1) == -EINVAL && errno == EINVAL,
        "short .rodata");
  printf("short: %s\n", ebpf_gpu_last_error());
  CHECK(ebpf_gpu_map__set_initial_value(map(p, "proto_count"), &gen, 4) == -EINVAL,
        "an array map");
  printf("array: %s\n", ebpf_gpu_last_error());
  CHECK(ebpf_gpu_map__set_initial_value(ctl, NULL, 4) == -EINVAL &&
            ebpf_gpu_map__set_initial_value(NULL, &gen, 4) == -EINVAL,
        "NULL");
  printf("null: %s\n", ebpf_gpu_last_error());

  CHECK(ebpf_gpu_map__set_initial_value(ro, rodata, ro_size) == 0 &&
            ebpf_gpu_map__set_initial_value(bss, counters, sizeof(counters)) == 0 &&
            ebpf_gpu_map__set_initial_value(ctl, &gen, sizeof(gen)) == 0,
        "set before load");
  /* The same bytes as ebpf_gpu_map__data's (libbpf's bpf_map__initial_value). */
  const uint8_t *ro_bytes = ebpf_gpu_map__data(ro, NULL);
  CHECK(ro_bytes && ro_bytes[0] == 1 && ro_bytes[4] == 6, ".rodata's bytes before load");
  /* Set again: the last one counts. */
  gen = 2;
  CHECK(ebpf_gpu_map__set_initial_value(ctl, &gen, sizeof(gen)) == 0, "set again");
  CHECK(ebpf_gpu_prog__load_opened(p) == 0, "load");
  CHECK(ebpf_gpu_map__set_initial_value(ctl, &gen, sizeof(gen)) == -EBUSY && errno == EBUSY,
        "after load");
  printf("after load: %s\n", ebpf_gpu_last_error());

  uint8_t buf[3][128];
  struct ebpf_gpu_packet pk[3];
  const uint8_t protos[3] = {17, 6, 17};
  for (int i = 0; i < 3; ++i)
    pk[i] = (struct ebpf_gpu_packet){buf[i], frame(buf[i], protos[i]), 128, 99, 0, 0};
  CHECK(ebpf_gpu_prog__run_burst(p, pk, 3) == 3, "burst");
  printf("verdicts: udp %s, tcp %s, udp %s\n", pk[0].verdict == XDP_PASS ? "pass" : "?",
         pk[1].verdict == XDP_DROP ? "drop" : "?", pk[2].verdict == XDP_PASS ? "pass" : "?");
  const uint64_t *after = ebpf_gpu_map__data(bss, NULL);
  CHECK(after, ".bss after the burst");
  /* 100 to start with, 2 a packet (generation), one TCP packet dropped. */
  printf(".bss: packets %llu, dropped %llu\n", (unsigned long long)after[0],
         (unsigned long long)after[1]);
  ebpf_gpu_prog__close(p);

  if (gpu_object(argv[2]))
    return 1;
  printf("ok\n");
  return 0;
}
