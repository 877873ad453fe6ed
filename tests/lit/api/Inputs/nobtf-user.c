/* The bytes of an untyped .bss, through the skeleton: written before a
 * burst, read after it. */
#include "nobtf.skel.h"

#include <stdio.h>

int main(void) {
  struct nobtf_gpu *skel = nobtf_gpu__open_and_load();
  uint8_t frame[64] = {0};
  struct ebpf_gpu_packet pkt = {frame, 60, 64, 0, 0, 0};
  uint64_t hits = 100;

  if (!skel) {
    fprintf(stderr, "%s\n", ebpf_gpu_last_error());
    return 1;
  }
  memcpy(skel->bss->__bytes, &hits, sizeof(hits));
  if (ebpf_gpu_prog__run_burst(skel->prog, &pkt, 1) != 1)
    return 1;
  memcpy(&hits, skel->bss->__bytes, sizeof(hits));
  printf("bss: %u bytes, hits %llu\n", (unsigned)sizeof(skel->bss->__bytes),
         (unsigned long long)hits);
  nobtf_gpu__destroy(skel);
  return 0;
}
