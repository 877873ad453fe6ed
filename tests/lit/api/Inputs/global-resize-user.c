/* SPDX-License-Identifier: Apache-2.0
 *
 * Global data resized between ebpf_gpu_prog__open and __load_opened with
 * ebpf_gpu_map__set_value_size, as a libbpf control program resizes a
 * section that ends in an array (global-data-resize.test), on
 * global_resize.c: .bss grown from 2 slots to 8, the verifier's refusal of
 * the 8 slots before, a burst counting in slots past the old size, the
 * bytes kept and zeroed; .data grown with its initial bytes kept;
 * .data.notarr (ending in a scalar) resized as libbpf resizes it; the
 * refusals. Prints one line a step; exits 1 on the first check that fails.
 */
#include <ebpf-gpu/ebpf-gpu.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

static struct ebpf_gpu_map *map(struct ebpf_gpu_prog *p, const char *name) {
  return ebpf_gpu_prog__find_map_by_name(p, name);
}

/* .data: gen (4 bytes), marks[3] (__u16). */
static int grow_data(struct ebpf_gpu_prog *p) {
  struct ebpf_gpu_map *d = map(p, ".data");
  size_t size = 0;
  uint8_t *before = ebpf_gpu_map__data(d, &size);
  CHECK(before && size == 10, ".data of 10 bytes");
  before[9] = 0x33; /* marks[2] = 0x3303 */
  CHECK(ebpf_gpu_map__set_value_size(d, 16) == 0, ".data to 16 bytes");
  uint8_t *after = ebpf_gpu_map__data(d, &size);
  static const uint8_t want[16] = {7, 0, 0, 0, 1, 0, 2, 0, 3, 0x33, 0, 0, 0, 0, 0, 0};
  CHECK(after && size == 16 && ebpf_gpu_map__value_size(d) == 16 && !memcmp(after, want, 16),
        ".data's bytes kept, the rest zero");
  printf(".data: 10 -> 16 bytes, gen %u, marks %u %u %u %u\n", after[0], after[4], after[6],
         after[8] | after[9] << 8, after[10]);
  /* Shrunk again: the bytes up to the smaller size stay. */
  CHECK(ebpf_gpu_map__set_value_size(d, 8) == 0, ".data to 8 bytes");
  after = ebpf_gpu_map__data(d, &size);
  CHECK(after && size == 8 && !memcmp(after, want, 8), ".data shrunk");
  CHECK(ebpf_gpu_map__set_value_size(d, 12) == 0, ".data to 12 bytes");
  after = ebpf_gpu_map__data(d, &size);
  CHECK(after && size == 12 && !memcmp(after, want, 8) && !after[8] && !after[9],
        ".data grown again: what was cut is zero");
  printf(".data: 16 -> 8 -> 12 bytes, marks %u %u %u\n", after[4], after[6], after[8]);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s global_resize.o global_resize.gpu.o\n", argv[0]);
    return 2;
  }
  struct ebpf_gpu_load_opts o = {.sz = sizeof(o), .backend = EBPF_GPU_BACKEND_HOST};
  struct ebpf_gpu_prog *p = ebpf_gpu_prog__open(argv[1], &o);
  CHECK(p, "open %s", argv[1]);
  struct ebpf_gpu_map *bss = map(p, ".bss");
  size_t size = 0;
  CHECK(bss && ebpf_gpu_map__value_size(bss) == 24, ".bss of 24 bytes");

  /* Eight slots (.rodata's nslots, set before load as a skeleton's
   * skel->rodata->nslots = 8) in a .bss of two: the verifier refuses, the
   * program stays opened. */
  struct ebpf_gpu_map *ro = map(p, ".rodata");
  uint32_t *nslots = ro ? ebpf_gpu_map__data(ro, &size) : NULL;
  CHECK(nslots && size == 4 && *nslots == 2, ".rodata's nslots");
  *nslots = 8;
  CHECK(ebpf_gpu_prog__load_opened(p) == -EINVAL, "8 slots of 2 refused");
  printf("8 slots in 2: %s\n", ebpf_gpu_last_error());

  /* Resized: 8 + 8 * 8 bytes, hits kept, the new slots zero. */
  uint64_t *b = ebpf_gpu_map__data(bss, NULL);
  CHECK(b, ".bss's bytes");
  b[0] = 100, b[1] = 10, b[2] = 20;
  CHECK(ebpf_gpu_map__set_value_size(bss, 72) == 0, ".bss to 72 bytes");
  b = ebpf_gpu_map__data(bss, &size);
  CHECK(b && size == 72 && ebpf_gpu_map__value_size(bss) == 72, ".bss's new size");
  CHECK(b[0] == 100 && b[1] == 10 && b[2] == 20 && b[3] == 0 && b[8] == 0, ".bss's bytes");
  printf(".bss: 24 -> 72 bytes, hits %llu, slots %llu %llu %llu\n", (unsigned long long)b[0],
         (unsigned long long)b[1], (unsigned long long)b[2], (unsigned long long)b[3]);
  if (grow_data(p))
    return 1;

  /* The last variable is no array: resized all the same, as libbpf does
   * (which drops the section's BTF type; ObjectTest checks that here). */
  struct ebpf_gpu_map *na = map(p, ".data.notarr");
  CHECK(ebpf_gpu_map__set_value_size(na, 20) == 0 && ebpf_gpu_map__value_size(na) == 20,
        ".data.notarr to 20 bytes");
  uint32_t *n = ebpf_gpu_map__data(na, &size);
  CHECK(n && size == 20 && n[0] == 5 && n[2] == 6 && n[4] == 0, ".data.notarr's bytes");
  printf(".data.notarr: 16 -> 20 bytes, first %u, last %u\n", n[0], n[2]);

  /* Refusals before load. */
  CHECK(ebpf_gpu_map__set_value_size(bss, 0) == -EINVAL && errno == EINVAL, "0 bytes");
  printf("0 bytes: %s\n", ebpf_gpu_last_error());
  CHECK(ebpf_gpu_map__set_key_size(bss, 8) == -EINVAL, ".bss key size");
  CHECK(ebpf_gpu_map__set_value_size(bss, 72) == 0, "the same size again");

  CHECK(ebpf_gpu_prog__load_opened(p) == 0, "load with 72 bytes");
  b = ebpf_gpu_map__data(bss, &size);
  CHECK(b && size == 72, ".bss after load");

  /* One packet a slot, and two more for slot 7: past the old 24 bytes. */
  uint8_t frames[10][64];
  struct ebpf_gpu_packet pkts[10];
  memset(frames, 0, sizeof(frames));
  memset(pkts, 0, sizeof(pkts));
  for (int i = 0; i < 10; ++i) {
    frames[i][0] = (uint8_t)(i < 8 ? i : 7);
    pkts[i].data = frames[i];
    pkts[i].len = 60;
    pkts[i].cap = sizeof(frames[i]);
  }
  CHECK(ebpf_gpu_prog__run_burst(p, pkts, 10) == 10, "burst");
  printf("after the burst: hits %llu, slots", (unsigned long long)b[0]);
  for (int i = 1; i <= 8; ++i)
    printf(" %llu", (unsigned long long)b[i]);
  printf("\n");
  CHECK(b[0] == 110 && b[1] == 11 && b[2] == 21 && b[3] == 1 && b[7] == 1 && b[8] == 3,
        "counted past the old size");
  /* The map calls see the same 72 bytes. */
  uint32_t zero = 0;
  uint64_t v[9];
  CHECK(ebpf_gpu_map__lookup_elem(bss, &zero, 4, v, sizeof(v), 0) == 0 && v[8] == 3,
        "lookup of 72 bytes");
  uint32_t *nv = ebpf_gpu_map__data(na, NULL);
  CHECK(nv && nv[2] == 6 + 10 * 5, ".data.notarr's last counted");

  CHECK(ebpf_gpu_map__set_value_size(bss, 80) == -EBUSY && errno == EBUSY, "after load");
  printf("after load: %s\n", ebpf_gpu_last_error());
  ebpf_gpu_prog__close(p);

  /* A .gpu.o has its sizes compiled in (ebpf-gpu-cc --map-value-size). */
  struct ebpf_gpu_prog *g = ebpf_gpu_prog__open(argv[2], NULL);
  CHECK(g, "open %s", argv[2]);
  struct ebpf_gpu_map *gb = map(g, ".bss");
  CHECK(gb && ebpf_gpu_map__value_size(gb) == 72, ".gpu.o's .bss compiled at 72 bytes");
  CHECK(ebpf_gpu_map__set_value_size(gb, 80) == -EOPNOTSUPP && errno == EOPNOTSUPP, ".gpu.o");
  printf(".gpu.o: .bss of %u bytes; %s\n", ebpf_gpu_map__value_size(gb), ebpf_gpu_last_error());
  ebpf_gpu_prog__close(g);
  printf("ok\n");
  return 0;
}
