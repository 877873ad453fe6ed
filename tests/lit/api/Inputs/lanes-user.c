/* SPDX-License-Identifier: Apache-2.0
 *
 * tests/lit/api/lanes.test: a program loaded with 4 workers, each a thread
 * running 200 bursts of 32 packets through its own lane at once, its
 * packets 60 + worker bytes long. Every packet is counted: the per-CPU
 * array holds each worker's own count in its slice, the shared array and
 * hash the totals. Then the refusals: a fifth lane, a lane of a program
 * loaded with one worker, a NULL lane. With --gpu, a .gpu.o on the GPU
 * back end, whose per-CPU maps have slices of their own (the GPU's, not one
 * a worker): there the slices' sum is the total.
 *   lanes-user OBJECT [--gpu] */
#include "check.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

enum { Workers = 4, Bursts = 200, Burst = 32 };

struct worker {
  struct ebpf_gpu_prog *prog;
  uint32_t id;
  int failed;
  char why[256];
};

static void *work(void *arg) {
  struct worker *w = arg;
  struct ebpf_gpu_lane *lane = ebpf_gpu_prog__lane(w->prog, w->id);
  static __thread uint8_t bufs[Burst][512];
  struct ebpf_gpu_packet pk[Burst];
  for (int b = 0; lane && b < Bursts; ++b) {
    for (int i = 0; i < Burst; ++i) {
      memset(bufs[i], 0, sizeof(bufs[i]));
      pk[i] = (struct ebpf_gpu_packet){.data = bufs[i] + 256, .len = 60 + w->id, .cap = 256,
                                       .headroom = 256};
    }
    if (ebpf_gpu_lane__run_burst(lane, pk, Burst, NULL) != Burst || pk[0].verdict != 2 /* XDP_PASS */) {
      w->failed = 1;
      break;
    }
  }
  if (!lane || w->failed) {
    w->failed = 1;
    snprintf(w->why, sizeof(w->why), "%s", ebpf_gpu_last_error());
  }
  return NULL;
}

int main(int argc, char **argv) {
  CHECK(argc == 2 || (argc == 3 && strcmp(argv[2], "--gpu") == 0),
        "usage: lanes-user OBJECT [--gpu]");
  const int gpu = argc == 3;
  struct ebpf_gpu_load_opts o = {.sz = sizeof(o),
                                 .backend = gpu ? EBPF_GPU_BACKEND_GPU : EBPF_GPU_BACKEND_HOST,
                                 .workers = Workers};
  struct ebpf_gpu_prog *p = ebpf_gpu_prog__load(argv[1], &o);
  CHECK(p, "load with %d workers", Workers);
  CHECK(ebpf_gpu_prog__lane(p, 0) == ebpf_gpu_prog__lane(p, 0), "one lane a worker");
  pthread_t t[Workers];
  struct worker w[Workers];
  for (uint32_t i = 0; i < Workers; ++i) {
    w[i] = (struct worker){.prog = p, .id = i};
    CHECK(pthread_create(&t[i], NULL, work, &w[i]) == 0, "thread %u", i);
  }
  for (uint32_t i = 0; i < Workers; ++i) {
    pthread_join(t[i], NULL);
    CHECK(!w[i].failed, "worker %u: %s", i, w[i].why);
  }
  struct ebpf_gpu_map *per = ebpf_gpu_prog__find_map_by_name(p, "per_worker");
  struct ebpf_gpu_map *total = ebpf_gpu_prog__find_map_by_name(p, "total");
  struct ebpf_gpu_map *by_len = ebpf_gpu_prog__find_map_by_name(p, "by_len");
  CHECK(per && total && by_len && (gpu || ebpf_gpu_map__cpus(per) == Workers),
        "the maps, %u CPUs", per ? ebpf_gpu_map__cpus(per) : 0);
  uint32_t zero = 0, cpus = ebpf_gpu_map__cpus(per);
  uint64_t slices[4096] = {0}, sum = 0, in_slices = 0;
  CHECK(cpus <= 4096 && ebpf_gpu_map__lookup_elem(per, &zero, 4, slices, 8 * cpus, 0) == 0,
        "per_worker");
  for (uint32_t i = 0; i < cpus; ++i)
    in_slices += slices[i];
  for (uint32_t i = 0; !gpu && i < Workers; ++i)
    printf("worker %u: %llu packets in its slice\n", i, (unsigned long long)slices[i]);
  printf("in the slices: %llu\n", (unsigned long long)in_slices);
  CHECK(ebpf_gpu_map__lookup_elem(total, &zero, 4, &sum, 8, 0) == 0, "total");
  printf("total: %llu\n", (unsigned long long)sum);
  for (uint32_t i = 0; i < Workers; ++i) {
    uint32_t len = 60 + i;
    uint64_t n = 0;
    CHECK(ebpf_gpu_map__lookup_elem(by_len, &len, 4, &n, 8, 0) == 0, "by_len[%u]", len);
    printf("length %u: %llu\n", len, (unsigned long long)n);
  }
  CHECK(!ebpf_gpu_prog__lane(p, Workers) && errno == EINVAL, "lane %d refused", Workers);
  printf("lane %d: %s\n", Workers, ebpf_gpu_last_error());
  CHECK(ebpf_gpu_lane__run_burst(NULL, NULL, 0, NULL) == -EINVAL, "a NULL lane refused");
  ebpf_gpu_prog__close(p);
  o.workers = 0;
  p = ebpf_gpu_prog__load(argv[1], &o);
  CHECK(p && ebpf_gpu_prog__lane(p, 0) && !ebpf_gpu_prog__lane(p, 1), "one worker: lane 0 only");
  ebpf_gpu_prog__close(p);
  return 0;
}
