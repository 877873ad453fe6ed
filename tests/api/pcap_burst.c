/* SPDX-License-Identifier: Apache-2.0
 *
 * A program on libebpf-gpu that runs a capture through an XDP program in
 * bursts (ebpf_gpu_prog__run_burst), each packet in a buffer of its own
 * with 256 bytes of headroom before it and 256 of tailroom after (as an
 * mbuf's), and writes what `ebpf-gpu-loader run` writes for the same
 * capture: OUT.txt, one line per packet (index, verdict, length, as
 * --verdicts), and OUT.pcap, the XDP_PASS, XDP_TX and XDP_REDIRECT packets
 * as the program left them (as --out, byte for byte); and OUT.maps, the
 * entries of its hash and array maps (one line each, map name, key and
 * value in hex, sorted; per-CPU, keyless and global data maps left out).
 * After the bursts it takes what the program left besides maps and
 * packets, as `run --events` and `--trace` write them: OUT.events, one
 * line "MAP HEX" per event record (ebpf_gpu_prog__consume_events), and
 * OUT.trace, its bpf_trace_printk lines (__consume_trace); each taken by a
 * callback that stops every 7 records or lines, the call repeated until
 * none is left (what a stop keeps comes next). The warnings go to stderr
 * as `run` prints them (__warnings). --fib FILE gives bpf_fib_lookup its
 * table (__set_fib_file), --ingress N sets ctx->ingress_ifindex
 * (run_burst_opts), --check-maps checks the maps' structure after the
 * bursts (__check_maps). --packet-memory lays every frame in one block
 * (each with 256 bytes of headroom and room to its block's end), gives
 * the block to the program (ebpf_gpu_prog__use_packet_memory; a GPU
 * program loaded with EBPF_GPU_DATA_MAPPED, so its bursts run in place)
 * and prints how many packets ran in place (__packets_in_place).
 * The back end is the default one: the GPU for a .gpu.o, the host for an
 * eBPF object. tests/lit/api/pcap-burst.test checks it against `run` on
 * the host; tests/gpu-device/api runs it on the GPU against the host's.
 *   pcap_burst OBJECT IN.pcap OUT [--program NAME] [--batch N] [--fib FILE]
 *              [--ingress N] [--check-maps] [--packet-memory]
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <ebpf-gpu/ebpf-gpu.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { Room = 256, MaxFrame = 9216 };

static void fail(const char *what, const char *why) {
  fprintf(stderr, "pcap_burst: %s: %s\n", what, why);
  exit(1);
}

struct frame {
  uint64_t ts_ns;
  uint32_t len;
  uint8_t *buf; /* Room + MaxFrame + Room bytes; the packet at buf + Room */
};

/* The capture's frames (little-endian pcap, micro- or nanosecond stamps). */
static struct frame *read_pcap(const char *path, size_t *count) {
  FILE *f = fopen(path, "rb");
  if (!f)
    fail(path, strerror(errno));
  uint32_t hdr[6];
  if (fread(hdr, sizeof(hdr), 1, f) != 1 || (hdr[0] != 0xa1b2c3d4u && hdr[0] != 0xa1b23c4du))
    fail(path, "not a little-endian pcap file");
  int nano = hdr[0] == 0xa1b23c4du;
  size_t n = 0, cap = 0;
  struct frame *frames = NULL;
  uint32_t rec[4];
  while (fread(rec, sizeof(rec), 1, f) == 1) {
    if (rec[2] > MaxFrame || rec[2] != rec[3])
      fail(path, "a frame longer than 9216 bytes, or cut short by the capture");
    if (n == cap) {
      cap = cap ? cap * 2 : 1024;
      frames = realloc(frames, cap * sizeof(*frames));
      if (!frames)
        fail(path, "out of memory");
    }
    struct frame *fr = &frames[n++];
    fr->ts_ns = (uint64_t)rec[0] * 1000000000u + (uint64_t)rec[1] * (nano ? 1 : 1000);
    fr->len = rec[2];
    fr->buf = malloc(Room + MaxFrame + Room);
    if (!fr->buf)
      fail(path, "out of memory");
    if (rec[2] && fread(fr->buf + Room, rec[2], 1, f) != 1)
      fail(path, "truncated");
  }
  fclose(f);
  *count = n;
  return frames;
}

static int compare_lines(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void hex(FILE *f, const uint8_t *b, size_t n) {
  for (size_t i = 0; i < n; ++i)
    fprintf(f, "%02x", b[i]);
}

/* The hash and array maps' entries, one line each, sorted. */
static void dump_maps(struct ebpf_gpu_prog *prog, const char *path) {
  FILE *out = fopen(path, "w");
  if (!out)
    fail(path, strerror(errno));
  for (size_t i = 0; i < ebpf_gpu_prog__map_count(prog); ++i) {
    struct ebpf_gpu_map *m = ebpf_gpu_prog__map(prog, i);
    uint32_t type = ebpf_gpu_map__type(m), ks = ebpf_gpu_map__key_size(m);
    uint32_t vs = ebpf_gpu_map__value_size(m);
    const char *name = ebpf_gpu_map__name(m);
    /* BPF_MAP_TYPE_HASH, ARRAY, LRU_HASH; not global data (".bss"...). */
    if ((type != 1 && type != 2 && type != 9) || name[0] == '.' || !ks)
      continue;
    char **lines = NULL;
    size_t n = 0;
    uint8_t *key = malloc(ks), *next = malloc(ks), *value = malloc(vs);
    int rc;
    for (rc = ebpf_gpu_map__get_next_key(m, NULL, next, ks); rc == 0;
         rc = ebpf_gpu_map__get_next_key(m, key, next, ks)) {
      memcpy(key, next, ks);
      if (ebpf_gpu_map__lookup_elem(m, key, ks, value, vs, 0) != 0)
        fail(name, ebpf_gpu_last_error());
      char *line = NULL;
      size_t size = 0;
      FILE *l = open_memstream(&line, &size);
      fprintf(l, "%s ", name);
      hex(l, key, ks);
      fputc(' ', l);
      hex(l, value, vs);
      fclose(l);
      lines = realloc(lines, (n + 1) * sizeof(*lines));
      lines[n++] = line;
    }
    if (rc != -ENOENT)
      fail(name, ebpf_gpu_last_error());
    qsort(lines, n, sizeof(*lines), compare_lines);
    for (size_t j = 0; j < n; ++j) {
      fprintf(out, "%s\n", lines[j]);
      free(lines[j]);
    }
    free(lines);
    free(key);
    free(next);
    free(value);
  }
  if (fclose(out) != 0)
    fail(path, "cannot write");
}

/* The callbacks' state: where the lines go, and how many this call took. */
struct taker {
  FILE *out;
  int taken;
};

static int take_event(void *ctx, const char *map, const void *data, size_t size) {
  struct taker *t = ctx;
  fprintf(t->out, "%s ", map);
  hex(t->out, data, size);
  fputc('\n', t->out);
  return ++t->taken == 7 ? -EINTR : 0;
}

static int take_line(void *ctx, const char *line) {
  struct taker *t = ctx;
  fprintf(t->out, "%s\n", line);
  return ++t->taken == 7 ? -EINTR : 0;
}

static int print_warning(void *ctx, const char *message) {
  (void)ctx;
  fprintf(stderr, "pcap_burst: warning: %s\n", message);
  return 0;
}

/* OUT.events and OUT.trace, taken 7 at a time. */
static void take_output(struct ebpf_gpu_prog *prog, const char *out) {
  char path[4096];
  for (int trace = 0; trace < 2; ++trace) {
    snprintf(path, sizeof(path), "%s.%s", out, trace ? "trace" : "events");
    struct taker t = {fopen(path, "w"), 0};
    if (!t.out)
      fail(path, strerror(errno));
    int rc;
    do {
      t.taken = 0;
      rc = trace ? ebpf_gpu_prog__consume_trace(prog, take_line, &t)
                 : ebpf_gpu_prog__consume_events(prog, take_event, &t);
      if (rc < 0 && (rc != -EINTR || t.taken != 7))
        fail(path, ebpf_gpu_last_error());
    } while (rc == -EINTR);
    if (rc != t.taken || fclose(t.out) != 0)
      fail(path, "a call took other than it said, or the file cannot be written");
  }
  if (ebpf_gpu_prog__warnings(prog, print_warning, NULL) < 0)
    fail("warnings", ebpf_gpu_last_error());
}

int main(int argc, char **argv) {
  struct ebpf_gpu_load_opts o = {.sz = sizeof(o)};
  struct ebpf_gpu_run_opts ro = {.sz = sizeof(ro)};
  unsigned batch = 256;
  const char *fib = NULL;
  int check_maps = 0, packet_memory = 0;
  if (argc < 4)
    goto usage;
  for (int i = 4; i < argc; i += 2) {
    if (strcmp(argv[i], "--check-maps") == 0) {
      check_maps = 1;
      --i;
      continue;
    }
    if (strcmp(argv[i], "--packet-memory") == 0) {
      packet_memory = 1;
      o.gpu_data = EBPF_GPU_DATA_MAPPED;
      --i;
      continue;
    }
    if (i + 1 >= argc)
      goto usage;
    if (strcmp(argv[i], "--program") == 0)
      o.program = argv[i + 1];
    else if (strcmp(argv[i], "--fib") == 0)
      fib = argv[i + 1];
    else if (strcmp(argv[i], "--ingress") == 0)
      ro.ingress_ifindex = (uint32_t)atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--batch") == 0 && (batch = (unsigned)atoi(argv[i + 1])) >= 1)
      continue;
    else
      goto usage;
  }
  /* The output calls refuse a program opened and not loaded, a missing
   * program and a missing callback. */
  struct ebpf_gpu_prog *prog = ebpf_gpu_prog__open(argv[1], &o);
  if (!prog)
    fail(argv[1], ebpf_gpu_last_error());
  struct taker none = {stdout, 0};
  if (ebpf_gpu_prog__consume_events(prog, take_event, &none) != -EINVAL ||
      ebpf_gpu_prog__set_fib(prog, "", 0, NULL) != -EINVAL ||
      ebpf_gpu_prog__consume_trace(NULL, take_line, &none) != -EINVAL ||
      ebpf_gpu_prog__check_maps(NULL) != -EINVAL)
    fail(argv[1], "an output call took a program not loaded, or none");
  ebpf_gpu_prog__close(prog);
  /* GPU options no back end has are refused at open (of a file that
   * opens). */
  struct ebpf_gpu_load_opts bad = o;
  bad.gpu_mode = (enum ebpf_gpu_gpu_mode)7;
  if (ebpf_gpu_prog__open(argv[1], &bad) || errno != EINVAL ||
      !strstr(ebpf_gpu_last_error(), "unknown gpu_mode 7"))
    fail(argv[1], "a gpu_mode of 7 was not refused");
  bad = o;
  bad.gpu_stage = (enum ebpf_gpu_gpu_stage)9;
  if (ebpf_gpu_prog__open(argv[1], &bad) || errno != EINVAL ||
      !strstr(ebpf_gpu_last_error(), "unknown gpu_stage 9"))
    fail(argv[1], "a gpu_stage of 9 was not refused");
  prog = ebpf_gpu_prog__load(argv[1], &o);
  if (!prog)
    fail(argv[1], ebpf_gpu_last_error());
  if (ebpf_gpu_prog__consume_events(prog, NULL, NULL) != -EINVAL ||
      ebpf_gpu_prog__warnings(prog, NULL, NULL) != -EINVAL)
    fail(argv[1], "an output call took no callback");
  if (fib && ebpf_gpu_prog__set_fib_file(prog, fib) != 0)
    fail(fib, ebpf_gpu_last_error());
  size_t count;
  struct frame *frames = read_pcap(argv[2], &count);
  /* --packet-memory: the frames moved into one block the program maps,
   * each in a slot of 256 bytes of headroom, the capture's longest frame
   * rounded up to 64 and 256 bytes after it; their room runs to the
   * slot's end. */
  uint8_t *block = NULL;
  size_t slot = 0;
  if (packet_memory) {
    uint32_t longest = 0;
    for (size_t i = 0; i < count; ++i)
      longest = frames[i].len > longest ? frames[i].len : longest;
    slot = Room + ((longest + 63u) & ~63u) + Room;
    size_t bytes = (count * slot + 4095u) & ~(size_t)4095u;
    block = aligned_alloc(4096, bytes ? bytes : 4096);
    if (!block)
      fail("packet memory", "out of memory");
    for (size_t i = 0; i < count; ++i) {
      memcpy(block + i * slot + Room, frames[i].buf + Room, frames[i].len);
      free(frames[i].buf);
      frames[i].buf = block + i * slot;
    }
    if (ebpf_gpu_prog__use_packet_memory(prog, NULL, 4096) != -EINVAL ||
        ebpf_gpu_prog__use_packet_memory(NULL, block, bytes) != -EINVAL)
      fail("use_packet_memory", "a null range or program was not refused");
    /* The GPU's copy data path has no use for it: refused, and the host
     * back end needs none: 0. */
    struct ebpf_gpu_load_opts copy = o;
    copy.gpu_data = EBPF_GPU_DATA_COPY;
    struct ebpf_gpu_prog *copying = ebpf_gpu_prog__load(argv[1], &copy);
    if (!copying)
      fail(argv[1], ebpf_gpu_last_error());
    int want = strcmp(ebpf_gpu_prog__backend(copying), "gpu") == 0 ? -EOPNOTSUPP : 0;
    if (ebpf_gpu_prog__use_packet_memory(copying, block, bytes ? bytes : 4096) != want)
      fail("use_packet_memory", "the copy data path's answer is not the documented one");
    ebpf_gpu_prog__close(copying);
    if (ebpf_gpu_prog__use_packet_memory(prog, block, bytes ? bytes : 4096) != 0)
      fail("use_packet_memory", ebpf_gpu_last_error());
  }
  struct ebpf_gpu_packet *pkts = calloc(batch, sizeof(*pkts));
  char path[4096];
  snprintf(path, sizeof(path), "%s.txt", argv[3]);
  FILE *verdicts = fopen(path, "w");
  snprintf(path, sizeof(path), "%s.pcap", argv[3]);
  FILE *pcap = fopen(path, "wb");
  if (!pkts || !verdicts || !pcap)
    fail(argv[3], "cannot write");
  /* runtime::writePcap's header: nanosecond stamps, Ethernet. */
  const uint32_t hdr[6] = {0xa1b23c4du, 2 | (4u << 16), 0, 0, 262144, 1};
  fwrite(hdr, sizeof(hdr), 1, pcap);
  unsigned long long actions[5] = {0};
  for (size_t at = 0; at < count; at += batch) {
    uint32_t n = (uint32_t)(count - at < batch ? count - at : batch);
    for (uint32_t i = 0; i < n; ++i) {
      struct frame *fr = &frames[at + i];
      pkts[i] = (struct ebpf_gpu_packet){
          .data = fr->buf + Room, .len = fr->len,
          .cap = packet_memory ? (uint32_t)(slot - Room) : fr->len + Room, .headroom = Room};
    }
    int rc = ebpf_gpu_prog__run_burst_opts(prog, pkts, n, &ro);
    if (rc != (int)n)
      fail("run_burst", ebpf_gpu_last_error());
    for (uint32_t i = 0; i < n; ++i) {
      struct ebpf_gpu_packet *p = &pkts[i];
      static const char *const names[] = {"XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX",
                                          "XDP_REDIRECT"};
      fprintf(verdicts, "%zu %s %u\n", at + i, p->verdict < 5 ? names[p->verdict] : "XDP_UNKNOWN",
              p->len);
      if (p->verdict < 5)
        ++actions[p->verdict];
      if (p->verdict < 2 || p->verdict > 4)
        continue;
      uint64_t ts = frames[at + i].ts_ns;
      uint32_t rec[4] = {(uint32_t)(ts / 1000000000u), (uint32_t)(ts % 1000000000u), p->len,
                         p->len};
      fwrite(rec, sizeof(rec), 1, pcap);
      fwrite(p->data, p->len, 1, pcap);
    }
  }
  if (fclose(verdicts) != 0 || fclose(pcap) != 0)
    fail(argv[3], "cannot write");
  snprintf(path, sizeof(path), "%s.maps", argv[3]);
  dump_maps(prog, path);
  take_output(prog, argv[3]);
  if (check_maps && ebpf_gpu_prog__check_maps(prog) != 0)
    fail("check_maps", ebpf_gpu_last_error());
  printf("%zu packets on the %s back end in bursts of %u: ABORTED %llu DROP %llu PASS %llu "
         "TX %llu REDIRECT %llu\n",
         count, ebpf_gpu_prog__backend(prog), batch, actions[0], actions[1], actions[2],
         actions[3], actions[4]);
  if (packet_memory) {
    printf("packets in place: %llu\n", (unsigned long long)ebpf_gpu_prog__packets_in_place(prog));
    ebpf_gpu_prog__forget_packet_memory(prog);
  }
  ebpf_gpu_prog__close(prog);
  for (size_t i = 0; i < count && !packet_memory; ++i)
    free(frames[i].buf);
  free(block);
  free(frames);
  free(pkts);
  return 0;
usage:
  fprintf(stderr, "usage: pcap_burst OBJECT IN.pcap OUT [--program NAME] [--batch N] "
                  "[--fib FILE] [--ingress N] [--check-maps] [--packet-memory]\n");
  return 2;
}
