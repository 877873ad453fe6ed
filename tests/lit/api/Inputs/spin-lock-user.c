/* SPDX-License-Identifier: Apache-2.0
 *
 * tests/lit/api/spin-lock.test: BPF_F_LOCK through the C API on a map whose
 * values hold a struct bpf_spin_lock (tests/lit/loader/spin-lock.c's
 * `counters`, the lock at offset 8), as the kernel takes it: an update's
 * lock word is left as the map has it (here given as ff bytes, which a
 * held lock would make the program wait on forever), a lookup reads it as
 * 0, and BPF_F_LOCK on a map without a lock is refused. With a second
 * object (tests/lit/loader/spin-lock-update.c), the same on its hash map
 * `flows`: a key that is not there is inserted unlocked, one that is there
 * written in place, BPF_NOEXIST and BPF_EXIST answered as the kernel's,
 * and an LRU hash refuses the flag.
 *   spin-lock-user OBJECT [UPDATE-OBJECT] */
#include "check.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

struct counter {
  uint64_t count;
  uint32_t lock, pad;
  uint64_t bytes;
};

struct flow {
  uint64_t len;
  uint32_t lock, under_lock;
  uint64_t len_again;
};

/* BPF_F_LOCK on spin-lock-update.c's hash `flows` (the lock at offset 8). */
static int hash_updates(const char *path) {
  struct ebpf_gpu_load_opts o = {.sz = sizeof(o), .backend = EBPF_GPU_BACKEND_HOST};
  struct ebpf_gpu_prog *p = ebpf_gpu_prog__load(path, &o);
  CHECK(p, "load %s", path);
  struct ebpf_gpu_map *flows = ebpf_gpu_prog__find_map_by_name(p, "flows");
  struct ebpf_gpu_map *recent = ebpf_gpu_prog__find_map_by_name(p, "recent");
  CHECK(flows && recent, "find the maps");
  uint32_t key = 0, absent = 9;
  struct flow f = {5, 0xffffffffu, 9, 5};
  printf("hash: insert %d", ebpf_gpu_map__update_elem(flows, &key, 4, &f, sizeof(f), 4));
  printf(", noexist %d", ebpf_gpu_map__update_elem(flows, &key, 4, &f, sizeof(f), 4 | 1));
  printf(", exist on an absent key %d", ebpf_gpu_map__update_elem(flows, &absent, 4, &f, sizeof(f), 4 | 2));
  f.len = f.len_again = 7;
  printf(", in place %d\n", ebpf_gpu_map__update_elem(flows, &key, 4, &f, sizeof(f), 4));
  uint64_t v = 1;
  printf("lru hash: %d\n", ebpf_gpu_map__update_elem(recent, &key, 4, &v, 8, 4));
  memset(&f, 0xee, sizeof(f));
  CHECK(ebpf_gpu_map__lookup_elem(flows, &key, 4, &f, sizeof(f), 4) == 0, "lookup");
  printf("before: len %llu lock %u under_lock %u\n", (unsigned long long)f.len, f.lock,
         f.under_lock);
  /* Four packets of 60 bytes (key 0): each updates the value and takes its
   * lock (a lock left held would make the burst wait forever). */
  static uint8_t bufs[4][1024];
  struct ebpf_gpu_packet pk[4];
  for (int i = 0; i < 4; ++i)
    pk[i] = (struct ebpf_gpu_packet){.data = bufs[i] + 256, .len = 60, .cap = 768, .headroom = 256};
  CHECK(ebpf_gpu_prog__run_burst(p, pk, 4) == 4, "burst: %s", ebpf_gpu_last_error());
  CHECK(ebpf_gpu_map__lookup_elem(flows, &key, 4, &f, sizeof(f), 0) == 0, "lookup");
  printf("after: len %llu lock %u under_lock %u\n", (unsigned long long)f.len, f.lock,
         f.under_lock);
  ebpf_gpu_prog__close(p);
  return 0;
}

int main(int argc, char **argv) {
  CHECK(argc == 2 || argc == 3, "usage: spin-lock-user OBJECT [UPDATE-OBJECT]");
  if (argc == 3 && hash_updates(argv[2]))
    return 1;
  struct ebpf_gpu_load_opts o = {.sz = sizeof(o), .backend = EBPF_GPU_BACKEND_HOST};
  struct ebpf_gpu_prog *p = ebpf_gpu_prog__load(argv[1], &o);
  CHECK(p, "load");
  struct ebpf_gpu_map *counters = ebpf_gpu_prog__find_map_by_name(p, "counters");
  struct ebpf_gpu_map *checks = ebpf_gpu_prog__find_map_by_name(p, "checks");
  CHECK(counters && checks, "find the maps");
  uint32_t key = 0;
  struct counter c = {5, 0xffffffffu, 0, 0};
  CHECK(ebpf_gpu_map__update_elem(counters, &key, 4, &c, sizeof(c), 4 /* BPF_F_LOCK */) == 0,
        "update with BPF_F_LOCK: %s", ebpf_gpu_last_error());
  uint64_t one = 1;
  int rc = ebpf_gpu_map__update_elem(checks, &key, 4, &one, 8, 4);
  printf("BPF_F_LOCK on a map without a lock: %d (%s)\n", rc, ebpf_gpu_last_error());
  rc = ebpf_gpu_map__lookup_elem(checks, &key, 4, &one, 8, 4);
  printf("lookup with BPF_F_LOCK on it: %d\n", rc);
  /* Ten packets of 60 bytes: slot 60 % 4 = 0, each counted under the lock. */
  static uint8_t bufs[10][1024];
  struct ebpf_gpu_packet pk[10];
  for (int i = 0; i < 10; ++i)
    pk[i] = (struct ebpf_gpu_packet){.data = bufs[i] + 256, .len = 60, .cap = 768, .headroom = 256};
  CHECK(ebpf_gpu_prog__run_burst(p, pk, 10) == 10, "burst: %s", ebpf_gpu_last_error());
  memset(&c, 0xee, sizeof(c));
  CHECK(ebpf_gpu_map__lookup_elem(counters, &key, 4, &c, sizeof(c), 4) == 0, "lookup: %s",
        ebpf_gpu_last_error());
  printf("count %llu bytes %llu lock %u\n", (unsigned long long)c.count,
         (unsigned long long)c.bytes, c.lock);
  CHECK(ebpf_gpu_map__lookup_elem(counters, &key, 4, &c, sizeof(c), 0) == 0, "plain lookup");
  printf("plain lookup: count %llu lock %u\n", (unsigned long long)c.count, c.lock);
  ebpf_gpu_prog__close(p);
  return 0;
}
