/* SPDX-License-Identifier: Apache-2.0
 *
 * A pattern map's rules replaced between bursts through the C API
 * (ebpf_gpu_map__load_contents_file and __load_contents, pattern-maps.test
 * and tests/gpu-device/api/pattern-maps.test): xdp_ids (samples/xdp_ids.c)
 * drops the packets whose TCP payload holds a rule. Four packets, whose
 * payloads hold A's rule 1, A's regex rule 2, B's rule 7 and nothing;
 * each step prints the four verdicts (D drop, P pass) and the error of
 * what was refused, whose old contents must still answer. The map is made
 * 8192 bytes (before load; a .gpu.o's by ebpf-gpu-cc --map-size
 * rules=8192) so that a large rule set does not fit. Exits 1 on the first
 * check that fails.
 */
#include <ebpf-gpu/ebpf-gpu.h>

#include <errno.h>
#include <linux/bpf.h> /* XDP_PASS, XDP_DROP */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static const char *Payloads[4] = {"GET /x alpha-rule HTTP", "POST bravo-rule", "q charlie-zz q",
                                  "nothing to see"};

/* Ethernet, IPv4 (20 bytes), TCP (20 bytes), then the payload. */
static uint32_t frame(uint8_t *p, const char *payload) {
  size_t n = strlen(payload);
  memset(p, 0, 54);
  p[12] = 0x08; /* IPv4 */
  p[14] = 0x45;
  p[16] = (uint8_t)((40 + n) >> 8);
  p[17] = (uint8_t)(40 + n);
  p[22] = 64;
  p[23] = 6; /* TCP */
  p[46] = 0x50; /* data offset 5 */
  memcpy(p + 54, payload, n);
  return (uint32_t)(54 + n);
}

/* The four verdicts as "DDPP"; NULL when the burst failed. */
static const char *verdicts(struct ebpf_gpu_prog *p) {
  static uint8_t bufs[4][256 + 128];
  static char out[5];
  struct ebpf_gpu_packet pk[4];
  for (int i = 0; i < 4; ++i) {
    pk[i] = (struct ebpf_gpu_packet){.data = bufs[i] + 256, .cap = 128, .headroom = 256};
    pk[i].len = frame(pk[i].data, Payloads[i]);
  }
  if (ebpf_gpu_prog__run_burst(p, pk, 4) != 4)
    return NULL;
  for (int i = 0; i < 4; ++i)
    out[i] = pk[i].verdict == XDP_DROP ? 'D' : pk[i].verdict == XDP_PASS ? 'P' : '?';
  out[4] = 0;
  return out;
}

int main(int argc, char **argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: %s host|gpu PROG A.rules B.rules BAD.rules MODEL\n", argv[0]);
    return 2;
  }
  struct ebpf_gpu_load_opts o = {.sz = sizeof(o),
                                 .backend = strcmp(argv[1], "gpu") ? EBPF_GPU_BACKEND_HOST
                                                                   : EBPF_GPU_BACKEND_GPU};
  struct ebpf_gpu_prog *p = ebpf_gpu_prog__open(argv[2], &o);
  CHECK(p, "open %s", argv[2]);
  struct ebpf_gpu_map *rules = ebpf_gpu_prog__find_map_by_name(p, "rules");
  struct ebpf_gpu_map *hits = ebpf_gpu_prog__find_map_by_name(p, "hits");
  CHECK(rules && hits, "maps");
  /* A .gpu.o has its sizes compiled in (ebpf-gpu-cc --map-size). */
  int sized = ebpf_gpu_map__set_max_entries(rules, 8192);
  CHECK(sized == 0 || sized == -EOPNOTSUPP, "max_entries");
  CHECK(ebpf_gpu_map__load_contents_file(rules, argv[3]) == -EINVAL, "before load");
  printf("before load: %s\n", ebpf_gpu_last_error());
  CHECK(ebpf_gpu_prog__load_opened(p) == 0, "load");
  const char *v = verdicts(p);
  CHECK(v, "burst");
  printf("empty: %s\n", v);

  CHECK(ebpf_gpu_map__load_contents_file(rules, argv[3]) == 0, "A");
  CHECK((v = verdicts(p)), "burst");
  printf("A: %s\n", v);
  uint32_t key = 2;
  uint64_t n = 0;
  CHECK(ebpf_gpu_map__lookup_elem(hits, &key, 4, &n, 8, 0) == 0 && n == 1, "hits[2] = 1");

  CHECK(ebpf_gpu_map__load_contents_file(rules, argv[4]) == 0, "B");
  CHECK((v = verdicts(p)), "burst");
  printf("B: %s\n", v);

  /* Refusals, each leaving B's rules. */
  int rc = ebpf_gpu_map__load_contents_file(rules, argv[5]);
  printf("bad file: %d %s\n", rc, ebpf_gpu_last_error());
  CHECK((v = verdicts(p)), "burst");
  printf("after bad file: %s\n", v);
  rc = ebpf_gpu_map__load_contents_file(rules, argv[6]);
  printf("model: %d %s\n", rc, ebpf_gpu_last_error());
  rc = ebpf_gpu_map__load_contents_file(rules, "/nonexistent/x.rules");
  printf("missing: %d %s\n", rc, ebpf_gpu_last_error());
  rc = ebpf_gpu_map__load_contents(hits, "abc\n", 4, NULL);
  printf("array: %d %s\n", rc, ebpf_gpu_last_error());
  const char bad[] = "ok\nre:/x{3,1}/\n";
  rc = ebpf_gpu_map__load_contents(rules, bad, sizeof(bad) - 1, NULL);
  printf("bad text: %d %s\n", rc, ebpf_gpu_last_error());
  /* 2,000 rules of 12 random bytes: far more than 8192 bytes of automaton. */
  char *big = malloc(2000 * 13 + 1), *at = big;
  CHECK(big, "malloc");
  srand(18);
  for (int i = 0; i < 2000; ++i, *at++ = '\n')
    for (int j = 0; j < 12; ++j)
      *at++ = (char)('a' + rand() % 26);
  rc = ebpf_gpu_map__load_contents(rules, big, (size_t)(at - big), "big.rules");
  free(big);
  printf("big: %d %s\n", rc, ebpf_gpu_last_error());
  CHECK((v = verdicts(p)), "burst");
  printf("after refusals: %s\n", v);

  /* Text from memory: rule 3 in the fourth payload only. */
  const char text[] = "# from memory\nid:3 re:/see/\n";
  CHECK(ebpf_gpu_map__load_contents(rules, text, sizeof(text) - 1, "mem") == 0, "text");
  CHECK((v = verdicts(p)), "burst");
  printf("text: %s\n", v);
  ebpf_gpu_prog__close(p);
  return 0;
}
