/* SPDX-License-Identifier: Apache-2.0
 *
 * Map shapes set between ebpf_gpu_prog__open and __load_opened, as a
 * libbpf control program sets them (map-shapes.test): map_shapes.o as
 * declared does not load (a map of maps without its inner map, a value
 * read past its 8 bytes), nor with BPF_F_RDONLY_PROG on a map it writes
 * or BPF_F_WRONLY_PROG on one it reads;
 * with an inner map template, 16-byte values, an 8-byte key, 64 entries
 * and BPF_F_NO_PREALLOC it does, and its counters show the program ran
 * against those shapes. Prints one line a step; exits 1 on the first
 * check that fails.
 */
#include <ebpf-gpu/ebpf-gpu.h>

#include <errno.h>
#include <linux/bpf.h> /* XDP_PASS, XDP_DROP, BPF_F_* */
#include <stdio.h>
#include <string.h>

#include "check.h"

static struct ebpf_gpu_map *map(struct ebpf_gpu_prog *p, const char *name) {
  return ebpf_gpu_prog__find_map_by_name(p, name);
}

int main(int argc, char **argv) {
  struct ebpf_gpu_load_opts o = {.sz = sizeof(o), .backend = EBPF_GPU_BACKEND_HOST};
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: %s map_shapes.o [map_shapes.gpu.o]\n", argv[0]);
    return 2;
  }
  if (argc == 3) {
    /* A .gpu.o compiled with the shapes: they are its own, opened as they
     * are (no GPU needed), and cannot be set again. */
    struct ebpf_gpu_prog *g = ebpf_gpu_prog__open(argv[2], NULL);
    CHECK(g, "open %s", argv[2]);
    struct ebpf_gpu_map *w = map(g, "wide");
    CHECK(w && ebpf_gpu_map__key_size(w) == 8 && ebpf_gpu_map__value_size(w) == 16 &&
              ebpf_gpu_map__max_entries(map(g, "slots")) == 64,
          ".gpu.o shapes");
    CHECK(ebpf_gpu_map__set_value_size(w, 32) == -EOPNOTSUPP, ".gpu.o value size");
    printf(".gpu.o: wide %u/%u; %s\n", ebpf_gpu_map__key_size(w), ebpf_gpu_map__value_size(w),
           ebpf_gpu_last_error());
    CHECK(ebpf_gpu_map__set_map_flags(w, BPF_F_NO_PREALLOC) == -EOPNOTSUPP, ".gpu.o flags");
    printf(".gpu.o flags: %s\n", ebpf_gpu_last_error());
    ebpf_gpu_prog__close(g);
    return 0;
  }

  /* Shapes refused by the load, which leaves the program opened: an
   * 8-byte key the program's 4-byte stack key cannot fill (the verifier
   * sees the new size), then, once that is undone, a value size the map
   * type does not take (a map of maps holds 4-byte values). */
  struct ebpf_gpu_prog *bad = ebpf_gpu_prog__open(argv[1], &o);
  CHECK(bad, "open");
  CHECK(ebpf_gpu_map__set_inner_map(map(bad, "outer"), map(bad, "inner_tmpl")) == 0 &&
            ebpf_gpu_map__set_value_size(map(bad, "wide"), 16) == 0 &&
            ebpf_gpu_map__set_key_size(map(bad, "slots"), 8) == 0,
        "set shapes");
  CHECK(ebpf_gpu_prog__load_opened(bad) == -EINVAL && !ebpf_gpu_prog__backend(bad),
        "an 8-byte key");
  printf("8-byte key: %s\n", ebpf_gpu_last_error());
  CHECK(ebpf_gpu_map__set_key_size(map(bad, "slots"), 4) == 0 &&
            ebpf_gpu_map__set_value_size(map(bad, "outer"), 8) == 0,
        "set shapes again");
  CHECK(ebpf_gpu_prog__load_opened(bad) == -EINVAL && !ebpf_gpu_prog__backend(bad),
        "a map of maps' 8-byte value");
  printf("8-byte map of maps value: %s\n", ebpf_gpu_last_error());
  /* Flags the verifier sees: BPF_F_RDONLY_PROG on `slots`, which the
   * program writes. */
  CHECK(ebpf_gpu_map__set_value_size(map(bad, "outer"), 4) == 0 &&
            ebpf_gpu_map__set_map_flags(map(bad, "slots"), BPF_F_RDONLY_PROG) == 0 &&
            ebpf_gpu_map__map_flags(map(bad, "slots")) == BPF_F_RDONLY_PROG,
        "set flags");
  CHECK(ebpf_gpu_prog__load_opened(bad) == -EINVAL && !ebpf_gpu_prog__backend(bad),
        "a write into a BPF_F_RDONLY_PROG map");
  printf("BPF_F_RDONLY_PROG: %s\n", ebpf_gpu_last_error());
  /* BPF_F_WRONLY_PROG on `slots` instead, which the program reads (its
   * `*slot += 1`): the verifier refuses the read, as the kernel's. */
  CHECK(ebpf_gpu_map__set_map_flags(map(bad, "slots"), BPF_F_WRONLY_PROG) == 0 &&
            ebpf_gpu_map__map_flags(map(bad, "slots")) == BPF_F_WRONLY_PROG,
        "set BPF_F_WRONLY_PROG");
  CHECK(ebpf_gpu_prog__load_opened(bad) == -EINVAL && !ebpf_gpu_prog__backend(bad),
        "a read of a BPF_F_WRONLY_PROG map");
  printf("BPF_F_WRONLY_PROG: %s\n", ebpf_gpu_last_error());
  ebpf_gpu_prog__close(bad);

  struct ebpf_gpu_prog *p = ebpf_gpu_prog__open(argv[1], &o);
  CHECK(p, "open");
  struct ebpf_gpu_map *slots = map(p, "slots"), *wide = map(p, "wide"), *outer = map(p, "outer");
  struct ebpf_gpu_map *tmpl = map(p, "inner_tmpl"), *inner_a = map(p, "inner_a");
  CHECK(slots && wide && outer && tmpl && inner_a, "the maps");

  CHECK(ebpf_gpu_prog__load_opened(p) == -EINVAL, "loaded without the inner map");
  printf("no inner map: %s\n", ebpf_gpu_last_error());

  /* Refusals, each with its errno and message; nothing is changed. */
  CHECK(ebpf_gpu_map__set_inner_map(slots, tmpl) == -EINVAL && errno == EINVAL, "inner of array");
  printf("inner map of an array: %s\n", ebpf_gpu_last_error());
  CHECK(ebpf_gpu_map__set_inner_map(outer, outer) == -EINVAL, "outer as its own inner");
  printf("map of maps as inner: %s\n", ebpf_gpu_last_error());
  CHECK(ebpf_gpu_map__set_inner_map(outer, NULL) == -EINVAL, "NULL inner");
  CHECK(ebpf_gpu_map__set_max_entries(slots, 0) == -EINVAL, "0 entries");
  printf("0 entries: %s\n", ebpf_gpu_last_error());
  CHECK(ebpf_gpu_map__set_max_entries(NULL, 1) == -EINVAL, "NULL map");
  struct ebpf_gpu_map *bss = map(p, ".bss");
  CHECK(bss && ebpf_gpu_map__set_key_size(bss, 8) == -EINVAL &&
            ebpf_gpu_map__set_max_entries(bss, 2) == -EINVAL &&
            ebpf_gpu_map__set_inner_map(bss, tmpl) == -EINVAL &&
            ebpf_gpu_map__set_inner_map(outer, bss) == -EINVAL,
        ".bss refusals");
  printf(".bss as inner map: %s\n", ebpf_gpu_last_error());
  CHECK(ebpf_gpu_map__set_max_entries(bss, 2) == -EINVAL, ".bss entries");
  printf(".bss entries: %s\n", ebpf_gpu_last_error());
  /* (Its value size may be set: global-data-resize.test.) */
  CHECK(ebpf_gpu_map__set_key_size(bss, 8) == -EINVAL, ".bss key size");
  printf(".bss key size: %s\n", ebpf_gpu_last_error());
  CHECK(ebpf_gpu_map__set_map_flags(bss, 0) == -EINVAL && errno == EINVAL, ".bss flags");
  printf(".bss flags: %s\n", ebpf_gpu_last_error());
  CHECK(ebpf_gpu_map__set_map_flags(wide, 1u << 19) == -EINVAL, "unknown flags");
  printf("unknown flags: %s\n", ebpf_gpu_last_error());
  CHECK(ebpf_gpu_map__set_map_flags(wide, BPF_F_RDONLY) == -EOPNOTSUPP, "BPF_F_RDONLY");
  printf("read-only for the caller: %s\n", ebpf_gpu_last_error());
  CHECK(ebpf_gpu_map__set_map_flags(NULL, 0) == -EINVAL && ebpf_gpu_map__map_flags(wide) == 0,
        "nothing set");

  CHECK(ebpf_gpu_map__set_inner_map(outer, inner_a) == 0 &&
            ebpf_gpu_map__set_inner_map(outer, tmpl) == 0,
        "inner map set (twice: the second replaces)");
  CHECK(ebpf_gpu_prog__load_opened(p) == -EINVAL, "loaded with 8-byte values");
  printf("8-byte values: %s\n", ebpf_gpu_last_error());

  CHECK(ebpf_gpu_map__set_value_size(wide, 16) == 0 && ebpf_gpu_map__set_key_size(wide, 8) == 0 &&
            ebpf_gpu_map__set_max_entries(slots, 8) == 0 &&
            ebpf_gpu_map__set_max_entries(slots, 64) == 0 &&
            ebpf_gpu_map__set_map_flags(wide, BPF_F_NO_PREALLOC) == 0,
        "shapes set");
  printf("before load: wide %u/%u, slots %u entries\n", ebpf_gpu_map__key_size(wide),
         ebpf_gpu_map__value_size(wide), ebpf_gpu_map__max_entries(slots));
  CHECK(ebpf_gpu_prog__load_opened(p) == 0, "load");
  /* (After load the getters read the live maps: what the back end made.) */
  CHECK(ebpf_gpu_map__key_size(wide) == 8 && ebpf_gpu_map__value_size(wide) == 16 &&
            ebpf_gpu_map__max_entries(slots) == 64 &&
            ebpf_gpu_map__map_flags(wide) == BPF_F_NO_PREALLOC,
        "shapes after load");
  printf("after load: wide's flags %u\n", ebpf_gpu_map__map_flags(wide));
  CHECK(ebpf_gpu_map__set_max_entries(slots, 128) == -EBUSY && errno == EBUSY &&
            ebpf_gpu_map__set_value_size(wide, 8) == -EBUSY &&
            ebpf_gpu_map__set_key_size(wide, 4) == -EBUSY &&
            ebpf_gpu_map__set_inner_map(outer, inner_a) == -EBUSY &&
            ebpf_gpu_map__set_map_flags(wide, 0) == -EBUSY,
        "after load: -EBUSY");
  printf("after load: %s\n", ebpf_gpu_last_error());

  /* Packets whose first bytes are 10, 10, 3, 200: slots 10, 10, 3, 8
   * (past the declared 4); wide keyed by that byte, 8 bytes of key. */
  uint8_t f[4][128];
  struct ebpf_gpu_packet pk[4];
  const uint8_t first[4] = {10, 10, 3, 200};
  const uint32_t len[4] = {60, 64, 60, 61};
  for (int i = 0; i < 4; ++i) {
    memset(f[i], 0, sizeof(f[i]));
    f[i][0] = first[i];
    pk[i] = (struct ebpf_gpu_packet){f[i], len[i], sizeof(f[i]), 0, 0, 0};
  }
  CHECK(ebpf_gpu_prog__run_burst(p, pk, 4) == 4, "burst");
  for (int i = 0; i < 4; ++i)
    CHECK(pk[i].verdict == XDP_PASS, "packet %d: verdict %u", i, pk[i].verdict);
  uint32_t k32 = 10;
  uint64_t c = 0;
  CHECK(ebpf_gpu_map__lookup_elem(slots, &k32, 4, &c, 8, 0) == 0 && c == 2, "slots[10] %llu",
        (unsigned long long)c);
  k32 = 8;
  CHECK(ebpf_gpu_map__lookup_elem(slots, &k32, 4, &c, 8, 0) == 0 && c == 1, "slots[8]");
  uint64_t k = 10, v[2] = {0, 0};
  CHECK(ebpf_gpu_map__lookup_elem(wide, &k, 8, v, 16, 0) == 0 && v[0] == 2 && v[1] == 124,
        "wide[10] %llu %llu", (unsigned long long)v[0], (unsigned long long)v[1]);
  printf("wide[10] = {%llu, %llu}\n", (unsigned long long)v[0], (unsigned long long)v[1]);
  k = 200;
  CHECK(ebpf_gpu_map__lookup_elem(wide, &k, 8, v, 16, 0) == 0 && v[0] == 1 && v[1] == 61,
        "wide[200]");
  CHECK(ebpf_gpu_map__lookup_elem(wide, &k32, 4, v, 16, 0) == -EINVAL, "a 4-byte key refused");
  printf("4-byte key: %s\n", ebpf_gpu_last_error());

  /* The outer map's slot 0 set to inner_tmpl by name (a slot's value is
   * the program's own numbering, which update_elem refuses to write): the
   * program now counts there and drops. */
  uint32_t zero = 0, idx = 2;
  CHECK(ebpf_gpu_map__update_elem(outer, &zero, 4, &idx, 4, 0) == -EINVAL,
        "outer[0] by number refused");
  CHECK(ebpf_gpu_map__set_slot(outer, &zero, 4, "nosuch") == -EINVAL &&
            ebpf_gpu_map__set_slot(wide, &k, 8, "inner_tmpl") == -EINVAL &&
            ebpf_gpu_map__set_slot(outer, &zero, 2, "inner_tmpl") == -EINVAL,
        "a slot set to no map, in a map that holds values, with a short key");
  CHECK(ebpf_gpu_map__set_slot(outer, &zero, 4, "inner_tmpl") == 0, "outer[0] = inner_tmpl");
  CHECK(ebpf_gpu_prog__run_burst(p, pk, 1) == 1 && pk[0].verdict == XDP_DROP, "drop");
  CHECK(ebpf_gpu_map__lookup_elem(tmpl, &zero, 4, &c, 8, 0) == 0 && c == 1, "inner_tmpl[0]");
  CHECK(ebpf_gpu_map__lookup_elem(inner_a, &zero, 4, &c, 8, 0) == 0 && c == 0, "inner_a[0]");
  printf("through outer[0]: inner_tmpl[0] = 1, verdict drop\n");
  ebpf_gpu_prog__close(p);
  printf("ok\n");
  return 0;
}
